import torch, time
big=torch.arange(10000000,dtype=torch.float32)/1e6
m=big.view(2500,4000); small=torch.arange(100,dtype=torch.float32); sm=big[:1000000].view(1000,1000)
def bench(name, reps, f):
    f(); t=time.perf_counter()
    for _ in range(reps): f()
    print('%-28s %10.1f us'%(name,(time.perf_counter()-t)/reps*1e6))
print('threads', torch.get_num_threads())
bench('sum 10M',20,lambda: big.sum()); bench('sum dim1 2500x4000',20,lambda: m.sum(1)); bench('sum dim0 2500x4000',20,lambda: m.sum(0))
bench('mean 10M',20,lambda: big.mean()); bench('amax 10M',20,lambda: big.amax()); bench('amax dim0',20,lambda: m.amax(0))
bench('max dim1',20,lambda: m.max(1)); bench('argmax 10M',10,lambda: big.argmax()); bench('var 10M',10,lambda: big.var()); bench('var dim1',10,lambda: m.var(1))
bench('norm 10M',10,lambda: big.norm()); bench('prod dim1',10,lambda: m.prod(1)); bench('cumsum dim1',10,lambda: m.cumsum(1)); bench('cumsum dim0',10,lambda: m.cumsum(0))
bench('softmax dim1 1000x1000',20,lambda: sm.softmax(1)); bench('softmax dim0 1000x1000',20,lambda: sm.softmax(0)); bench('logsumexp dim1',20,lambda: sm.logsumexp(1))
bench('sum small 100',100000,lambda: small.sum()); bench('sum_dim small 100',100000,lambda: small.sum(0)); bench('max_dim small',100000,lambda: small.max(0))
bench('softmax small',100000,lambda: small.softmax(0)); bench('cumsum small',100000,lambda: small.cumsum(0))
