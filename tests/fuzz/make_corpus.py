"""Writes the fuzz targets' seed corpora (tests/fuzz/corpus/<target>/) from
small real files: torch.save (zip, legacy, protocol 4), safetensors,
numpy.save, IDX, CSV, plus index strings and einsum equations.
Run with /usr/bin/python3 (python3-torch, python3-numpy)."""
import io, os, struct, json, gzip
import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))


def put(target, name, data):
    d = os.path.join(HERE, 'corpus', target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), 'wb') as f:
        f.write(data.encode() if isinstance(data, str) else data)


def saved(obj, **kw):
    b = io.BytesIO()
    torch.save(obj, b, **kw)
    return b.getvalue()


def safetensors(tensors):  # the reference layout: sorted, compact JSON padded to 8
    header, offset, blobs = {}, 0, []
    for k in sorted(tensors):
        a = tensors[k].numpy()
        raw = a.tobytes()
        header[k] = {'dtype': {'float32': 'F32', 'int64': 'I64', 'float64': 'F64', 'uint8': 'U8'}[str(a.dtype)],
                     'shape': list(a.shape), 'data_offsets': [offset, offset + len(raw)]}
        offset += len(raw)
        blobs.append(raw)
    h = json.dumps(header, separators=(',', ':')).encode()
    h += b' ' * (-len(h) % 8)
    return struct.pack('<Q', len(h)) + h + b''.join(blobs)


torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU(), torch.nn.Linear(3, 1, bias=False))
sd = net.state_dict()
small = {'w': torch.arange(6.).reshape(2, 3), 'i': torch.tensor([1, 2], dtype=torch.int64)}
small['t'] = small['w'].t()
for target in ('pth', 'state_dict'):
    put(target, 'net.pth', saved(sd))
    put(target, 'net_legacy.pth', saved(sd, _use_new_zipfile_serialization=False))
    put(target, 'net_p4.pth', saved(sd, pickle_protocol=4))
    put(target, 'net.safetensors', safetensors(dict(sd)))
put('pth', 'views.pth', saved(small))
put('pth', 'views_legacy.pth', saved(small, _use_new_zipfile_serialization=False))
put('state_dict', 'partial.pth', saved({'0.weight': sd['0.weight']}))
put('safetensors', 'net.safetensors', safetensors(dict(sd)))
put('safetensors', 'small.safetensors', safetensors({'w': small['w'], 'i': small['i'],
                                                      'u': torch.tensor([3, 4], dtype=torch.uint8)}))

for name, a in {'f4': np.arange(6, dtype='<f4').reshape(2, 3), 'f8_fortran': np.asfortranarray(np.eye(3)),
                'i8_scalar': np.array(7, dtype='<i8'), 'be_i4': np.arange(4, dtype='>i4'),
                'bool': np.array([True, False]), 'u1_empty': np.zeros((0, 2), dtype='u1')}.items():
    b = io.BytesIO()
    np.save(b, a)
    put('npy', name + '.npy', b.getvalue())


def idx(code, a):
    return bytes([0, 0, code, a.ndim]) + b''.join(struct.pack('>I', s) for s in a.shape) + a.tobytes()


put('idx', 'u8_images.idx', idx(0x08, np.arange(2 * 3 * 3, dtype='u1').reshape(2, 3, 3)))
put('idx', 'labels.idx', idx(0x08, np.array([3, 1, 4], dtype='u1')))
put('idx', 'f8.idx', idx(0x0E, np.array([[1.5, -2.25]], dtype='>f8')))
put('idx', 'i4.idx', idx(0x0C, np.array([-1, 2, 3], dtype='>i4')))

for name, text in {'plain': '1,2,3\n4,5,6\n', 'floats': '0.5,-1e3,inf\n2,nan,3\n', 'semicolon': '1;2\n3;4\n',
                   'header': 'a,b\n1,2\n', 'blank_lines': '\n1,2\n\n3,4\n'}.items():
    opts = {'plain': 0, 'floats': 1, 'semicolon': 0x10, 'header': 0x20, 'blank_lines': 2}[name]
    put('csv', name, bytes([opts]) + text.encode())

for i, spec in enumerate(['1', ':, 1:', '..., None', '[0, 2]', '[[0, 1], [2, 0]]', '[[0], [[]]]', 'True',
                          '::2, -1', '1:3, [True, False, True, False]', '[[True, False, True]], 0',
                          '::9223372036854775807', '0, ..., 1', '-1:0:-1', 'None, [1], :, None']):
    put('index', 'spec%02d' % i, spec)

for i, eq in enumerate(['ij->ji', 'ij,jkl->ikl', 'ij,jkl,i->kl', '...', 'ii->i', 'ij->', 'i...->...',
                        'ab,bcd,a', 'ij,j', 'ij,ijk->', ' i j , j k l -> i k l ']):
    put('einsum', 'eq%02d' % i, eq)
