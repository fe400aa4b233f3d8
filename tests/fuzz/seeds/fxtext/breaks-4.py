class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "f32[4, 16][16, 1]cuda:0", arg1_1: "f32[4][1]cuda:0", arg2_1: "f32[8, 16][16, 1]cuda:0"):
        # File: /work/main/tests/gpu/trace_graphs.py:76 in torch_dynamo_resume_in_forward_at_75, code: return s.b(y).softmax(-1)
        permute: "f32[16, 4][1, 16]cuda:0" = torch.ops.aten.permute.default(arg0_1, [1, 0]);  arg0_1 = None
        addmm: "f32[8, 4][4, 1]cuda:0" = torch.ops.aten.addmm.default(arg1_1, arg2_1, permute);  arg1_1 = arg2_1 = permute = None

        # No stacktrace found for following nodes
        prepare_softmax_online_default = torch.ops.prims.prepare_softmax_online.default(addmm, -1)
        getitem: "f32[8, 1][1, 1]cuda:0" = prepare_softmax_online_default[0]
        getitem_1: "f32[8, 1][1, 1]cuda:0" = prepare_softmax_online_default[1];  prepare_softmax_online_default = None
        sub_tensor: "f32[8, 4][4, 1]cuda:0" = torch.ops.aten.sub.Tensor(addmm, getitem);  addmm = getitem = None
        exp_default: "f32[8, 4][4, 1]cuda:0" = torch.ops.aten.exp.default(sub_tensor);  sub_tensor = None

        # File: /work/main/tests/gpu/trace_graphs.py:76 in torch_dynamo_resume_in_forward_at_75, code: return s.b(y).softmax(-1)
        div: "f32[8, 4][4, 1]cuda:0" = torch.ops.aten.div.Tensor(exp_default, getitem_1);  exp_default = getitem_1 = None
        return (div,)

