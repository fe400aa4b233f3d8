class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "f32[16, 16][16, 1]cuda:0", arg1_1: "f32[16][1]cuda:0", arg2_1: "f32[8, 16][16, 1]cuda:0"):
        # File: /work/main/tests/gpu/trace_graphs.py:74 in forward, code: y = torch.tanh(s.a(x)) * 2
        permute: "f32[16, 16][1, 16]cuda:0" = torch.ops.aten.permute.default(arg0_1, [1, 0]);  arg0_1 = None
        mm_default: "f32[8, 16][16, 1]cuda:0" = torch.ops.aten.mm.default(arg2_1, permute);  arg2_1 = permute = None
        add_tensor: "f32[8, 16][16, 1]cuda:0" = torch.ops.aten.add.Tensor(arg1_1, mm_default);  arg1_1 = mm_default = None
        tanh: "f32[8, 16][16, 1]cuda:0" = torch.ops.aten.tanh.default(add_tensor);  add_tensor = None
        mul: "f32[8, 16][16, 1]cuda:0" = torch.ops.aten.mul.Tensor(tanh, 2);  tanh = None
        return (mul,)

