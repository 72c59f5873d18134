"""Golden data for tests/test_io.c: safetensors files made by an independent
writer (the format by hand with struct and json: the safetensors package is
not installed), files torch.save writes (zip and legacy formats, pickle
protocols 2 and 4, a deflated copy), a few damaged or hostile ones made by
hand, and the values they hold.

Run with /usr/bin/python3 (Debian's PyTorch 1.13). Writes io.ctg and io/.
"""
import io
import json
import os
import struct
import zipfile
from collections import OrderedDict

import torch
import torch.nn as nn

from ctg import Writer

torch.set_num_threads(1)
W = Writer('io.ctg')
OUT = 'io'
os.makedirs(OUT, exist_ok=True)

# ---------------------------------------------------------------- safetensors

ST_DTYPES = {torch.bool: 'BOOL', torch.uint8: 'U8', torch.int8: 'I8', torch.int16: 'I16', torch.float16: 'F16',
             torch.bfloat16: 'BF16', torch.int32: 'I32', torch.float32: 'F32', torch.float64: 'F64',
             torch.int64: 'I64'}
# the reference writer sorts by its Dtype enum (BOOL, U8, I8, F8_E5M2, F8_E4M3, I16, U16, F16, BF16, I32, U32,
# F32, F64, I64, U64), last first, then by name
ST_RANK = {'BOOL': 0, 'U8': 1, 'I8': 2, 'I16': 5, 'F16': 7, 'BF16': 8, 'I32': 9, 'F32': 11, 'F64': 12, 'I64': 13}


def raw(t):
    t = t.contiguous()
    if t.dtype in (torch.float16, torch.bfloat16):
        t = t.view(torch.int16)
    return t.numpy().tobytes()  # little-endian on this machine


def st_header(items, metadata):
    """items: (name, dtype string, shape, offsets) in file order."""
    head = OrderedDict()
    if metadata is not None:
        head['__metadata__'] = metadata
    for name, dt, shape, offsets in items:
        head[name] = OrderedDict([('dtype', dt), ('shape', list(shape)), ('data_offsets', list(offsets))])
    return json.dumps(head, separators=(',', ':'), ensure_ascii=False).encode()


def st_reference(tensors, metadata=None):
    """The bytes the reference writer makes for a list of (name, tensor)."""
    order = sorted(tensors, key=lambda nt: (-ST_RANK[ST_DTYPES[nt[1].dtype]], nt[0].encode()))
    items, blobs, at = [], [], 0
    for name, t in order:
        b = raw(t)
        items.append((name, ST_DTYPES[t.dtype], t.shape, (at, at + len(b))))
        blobs.append(b)
        at += len(b)
    h = st_header(items, metadata)
    h += b' ' * (-len(h) % 8)
    return struct.pack('<Q', len(h)) + h + b''.join(blobs)


def put(z, name, data):
    """An entry with a fixed date, so that regenerating gives the same bytes."""
    z.writestr(zipfile.ZipInfo(name, (1980, 1, 1, 0, 0, 0)), data, compress_type=z.compression)


def write(name, data):
    with open(os.path.join(OUT, name), 'wb') as f:
        f.write(data)


g = torch.Generator().manual_seed(1)
SAVE = [  # what test_io.c saves: (name, tensor); the names test sorting and JSON escaping
    ('layer.weight', torch.randn(3, 4, generator=g)),
    ('layer.bias', torch.randn(3, generator=g)),
    ('a"quote', torch.randn(2, generator=g).double()),
    ('back\\slash', torch.randint(-100, 100, (2, 2), generator=g)),
    ('new\nline\ttab\x01', torch.randint(-100, 100, (3,), generator=g).int()),
    ('\u00e9t\u00e9', torch.randn(2, 2, generator=g).half()),
    ('bf', torch.randn(3, generator=g).bfloat16()),
    ('short', torch.randint(-1000, 1000, (2,), generator=g).short()),
    ('i8', torch.randint(-100, 100, (5,), generator=g).to(torch.int8)),
    ('u8', torch.randint(0, 255, (3,), generator=g).to(torch.uint8)),
    ('mask', torch.tensor([True, False, True])),
    ('scalar', torch.tensor(2.5)),
    ('empty', torch.zeros(0, 3)),
    ('Z', torch.randn(1, generator=g)),
]
for i, (name, t) in enumerate(SAVE):
    W.add('save.%d' % i, t)
write('expected.safetensors', st_reference(SAVE, {'format': 'pt'}))
write('expected_nometa.safetensors', st_reference(SAVE))
write('empty.safetensors', st_reference([]))

# a file in the reference layout, and the same tensors written differently but
# validly: header order unlike data order, whitespace, escapes, an unknown field
READ = [('w', torch.randn(2, 3, generator=g)), ('idx', torch.arange(4)), ('h', torch.randn(3, generator=g).half()),
        ('flags', torch.tensor([False, True])), ('d', torch.randn(2, 2, generator=g).double()),
        ('na\u00efve', torch.tensor(7, dtype=torch.int32)), ('none', torch.zeros(2, 0, dtype=torch.int16))]
for name, t in READ:
    W.add('read.' + name, t)
write('reference.safetensors', st_reference(READ, {'format': 'pt', 'source': 'gen_io.py'}))

blobs, at, items = [], 0, []
for name, t in reversed(READ):  # data in reverse order
    b = raw(t)
    items.append((name, t, (at, at + len(b))))
    blobs.append(b)
    at += len(b)
text = '{\n  "na\\u00efve" : {"shape": [], "dtype": "I32", "data_offsets": [%d, %d], "extra": {"a": [1, 2.5e3, null, true]}},\n' % items[1][2]
text += ',\n'.join('  "%s": {"dtype": "%s", "shape": %s, "data_offsets": [%d, %d]}' % (
    n, ST_DTYPES[t.dtype], json.dumps(list(t.shape)), o[0], o[1]) for n, t, o in items if n != 'na\u00efve')
text += ',\n  "__metadata__": {"k\\"ey": "v\\u00e0lue\\n"}\n}'
h = text.encode()
write('variant.safetensors', struct.pack('<Q', len(h)) + h + b''.join(blobs))  # not padded: data misaligned

# ---------------------------------------------------------------- torch.save: a model

torch.manual_seed(0)
net = nn.Sequential(nn.Embedding(10, 4), nn.Linear(4, 3), nn.BatchNorm1d(3))
for _ in range(3):  # running statistics and num_batches_tracked move
    net(torch.randint(0, 10, (6,)))
net.eval()
x = torch.tensor([1, 4, 4, 9, 0])
W.add('net.in', x)
with torch.no_grad():
    W.add('net.out', net(x))
sd = net.state_dict()
for k, v in sd.items():
    W.add('net.' + k, v)
torch.save(sd, os.path.join(OUT, 'net.pth'))

# the same archive with deflated entries (torch.load reads those too)
src = zipfile.ZipFile(os.path.join(OUT, 'net.pth'))
with zipfile.ZipFile(os.path.join(OUT, 'net_deflate.pth'), 'w', zipfile.ZIP_DEFLATED) as dst:
    for info in src.infolist():
        put(dst, info.filename, src.read(info.filename))
check = torch.load(os.path.join(OUT, 'net_deflate.pth'))
assert all(torch.equal(check[k], v) for k, v in sd.items())

# ---------------------------------------------------------------- torch.save: layouts and dtypes

g = torch.Generator().manual_seed(2)
base = torch.randn(3, 4, generator=g)
big = torch.arange(10, dtype=torch.float64)
m = torch.randn(4, 5, generator=g)
tied = torch.randn(2, 2, generator=g)
T = OrderedDict()
T['base'] = base
T['base_t'] = base.t()                               # shares base's storage, transposed
T['slice'] = big[2:5]                                # storage offset 2 in a storage of 10
T['col'] = m[:, 1]                                   # offset 1, stride 5
T['expanded'] = torch.randn(3, generator=g).expand(2, 3)  # stride 0
T['f16'] = torch.randn(2, 3, generator=g).half()
T['bf16'] = torch.randn(4, generator=g).bfloat16()
T['i64'] = torch.tensor([-(2 ** 40), 0, 2 ** 62])
T['i32'] = torch.tensor([-7, 8], dtype=torch.int32)
T['i16'] = torch.tensor([[300, -300]], dtype=torch.int16)
T['i8'] = torch.tensor([-128, 127], dtype=torch.int8)
T['u8'] = torch.tensor([0, 255, 7], dtype=torch.uint8)
T['bool'] = torch.tensor([[True], [False]])
T['scalar'] = torch.tensor(3.5)
T['empty'] = torch.zeros(0, 3)
T['param'] = nn.Parameter(torch.randn(2, generator=g))  # _rebuild_parameter, requires_grad
T['tied_a'] = tied                                   # one tensor under two names
T['tied_b'] = tied
T['many_dims'] = torch.randn(1, 2, 1, 2, 1, 2, generator=g)
T['m'] = m

storage_ids = {}
for k, t in T.items():
    W.add('pth.' + k, t.detach())
    W.add('pth.%s.stride' % k, torch.tensor(t.stride(), dtype=torch.int64))
    W.add('pth.%s.offset' % k, torch.tensor(t.storage_offset()))
    sid = storage_ids.setdefault(t.storage().data_ptr(), len(storage_ids))
    W.add('pth.%s.storage' % k, torch.tensor(sid))
torch.save(T, os.path.join(OUT, 'tensors.pth'))
torch.save(T, os.path.join(OUT, 'tensors_legacy.pth'), _use_new_zipfile_serialization=False)
torch.save(T, os.path.join(OUT, 'tensors_p4.pth'), pickle_protocol=4)
for f in ('tensors.pth', 'tensors_legacy.pth', 'tensors_p4.pth'):
    back = torch.load(os.path.join(OUT, f))
    assert list(back) == list(T) and all(torch.equal(back[k], T[k]) for k in T)

# ---------------------------------------------------------------- files that must be refused

torch.save([base], os.path.join(OUT, 'list.pth'))
torch.save({'model': sd, 'epoch': 3}, os.path.join(OUT, 'checkpoint.pth'))
torch.save({'c': torch.zeros(2, dtype=torch.complex64)}, os.path.join(OUT, 'complex.pth'))


def zip_pickle(name, pickle, storages=()):
    """A zip archive as torch.save lays it out, around a pickle made by hand."""
    with zipfile.ZipFile(os.path.join(OUT, name), 'w', zipfile.ZIP_STORED) as z:
        stem = name.split('.')[0]
        put(z, stem + '/data.pkl', pickle)
        for key, data in storages:
            put(z, '%s/data/%s' % (stem, key), data)
        put(z, stem + '/version', '3\n')


def s(text):  # BINUNICODE
    b = text.encode()
    return b'X' + struct.pack('<I', len(b)) + b


def tensor_pickle(size, stride, offset=0, numel=4):
    """{'w': _rebuild_tensor_v2(FloatStorage '0' of numel, offset, size, stride, False, OrderedDict())}"""
    tup = lambda xs: b'(' + b''.join(b'J' + struct.pack('<i', v) for v in xs) + b't'
    return (b'\x80\x02}(' + s('w') + b'ctorch._utils\n_rebuild_tensor_v2\n((' + s('storage') +
            b'ctorch\nFloatStorage\n' + s('0') + s('cpu') + b'J' + struct.pack('<i', numel) + b'tQ' +
            b'J' + struct.pack('<i', offset) + tup(size) + tup(stride) +
            b'\x89ccollections\nOrderedDict\n)RtRu.')


zip_pickle('ok_by_hand.pth', tensor_pickle([2, 2], [2, 1]), [('0', struct.pack('<4f', 1, 2, 3, 4))])
zip_pickle('out_of_bounds.pth', tensor_pickle([3, 2], [2, 1]), [('0', struct.pack('<4f', 1, 2, 3, 4))])
zip_pickle('offset_out_of_bounds.pth', tensor_pickle([2], [1], offset=3), [('0', struct.pack('<4f', 1, 2, 3, 4))])
zip_pickle('wrong_storage_size.pth', tensor_pickle([2, 2], [2, 1], numel=2 ** 30), [('0', struct.pack('<4f', 1, 2, 3, 4))])
zip_pickle('missing_storage.pth', tensor_pickle([2, 2], [2, 1]))
zip_pickle('os_system.pth', b'\x80\x02cos\nsystem\n' + s('echo hi') + b'\x85R.')
zip_pickle('bad_opcode.pth', b'\x80\x02}(' + s('w') + b'I42\nu.')
zip_pickle('truncated_pickle.pth', tensor_pickle([2, 2], [2, 1])[:-9], [('0', struct.pack('<4f', 1, 2, 3, 4))])
zip_pickle('memo_huge.pth', b'\x80\x02}r\xff\xff\xff\xff.')
zip_pickle('memo_missing.pth', b'\x80\x02}h\x07.')
zip_pickle('underflow.pth', b'\x80\x02s.')
zip_pickle('negative_stride.pth', tensor_pickle([2], [-1], offset=3), [('0', struct.pack('<4f', 1, 2, 3, 4))])
zip_pickle('duplicate_key.pth', b'\x80\x02}(' + s('w') + b'N' + s('w') + b'Nu.')
with zipfile.ZipFile(os.path.join(OUT, 'no_version.pth'), 'w') as z:
    put(z, 'no_version/data.pkl', b'\x80\x02}.')
with zipfile.ZipFile(os.path.join(OUT, 'version_11.pth'), 'w') as z:
    put(z, 'version_11/data.pkl', b'\x80\x02}.')
    put(z, 'version_11/version', '11\n')
with zipfile.ZipFile(os.path.join(OUT, 'flat.pth'), 'w') as z:
    put(z, 'data.pkl', b'\x80\x02}.')

W.save()
