
import os, sys, torch
sys.path.insert(0, os.environ.get("CGS_BRIDGE", "tools/python"))
torch.manual_seed(0)
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(32, 64)
        self.b = torch.nn.Linear(64, 16)
    def forward(self, x):
        x = torch.relu(self.a(x))
        print("between the layers")          # a graph break: Dynamo cannot trace print
        return self.b(x).softmax(-1)
net = Net().cuda()
if os.environ.get("CGS_CHANGE"):
    import torch._inductor.config as c
    c.epilogue_fusion = False                # one config value changed
if os.environ.get("CGS_PIECEWISE"):
    import cgscope_torch as ct
    fn = torch.compile(net, backend=ct.piecewise_backend(["torch.relu"], compile_sizes=[8]))
else:
    fn = torch.compile(net)
for n in (8, 8, 32, 8):
    fn(torch.randn(n, 32, device="cuda"))
torch.cuda.synchronize()
print("done")
