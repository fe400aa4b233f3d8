class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "f32[5, 3][3, 1]cuda:0"):
        # File: /work/main/tests/gpu/trace_graphs.py:112 in forward, code: return torch.cond(x.sum() > 0, lambda t: t.sin() + 1, lambda t: t.cos() * 2, (x,))
        true_graph_0 = self.true_graph_0
        false_graph_0 = self.false_graph_0
        sum_1: "f32[][]cuda:0" = torch.ops.aten.sum.default(arg0_1)
        gt: "b8[][]cuda:0" = torch.ops.aten.gt.Scalar(sum_1, 0);  sum_1 = None
        cond = torch.ops.higher_order.cond(gt, true_graph_0, false_graph_0, (arg0_1,));  gt = true_graph_0 = false_graph_0 = arg0_1 = None
        getitem: "f32[5, 3][3, 1]cuda:0" = cond[0];  cond = None
        return (getitem,)

    class true_graph_0(torch.nn.Module):
        def forward(self, arg0_1: "f32[5, 3][3, 1]cuda:0"):
            # File: /work/main/tests/gpu/trace_graphs.py:112 in <lambda>, code: return torch.cond(x.sum() > 0, lambda t: t.sin() + 1, lambda t: t.cos() * 2, (x,))
            sin: "f32[5, 3][3, 1]cuda:0" = torch.ops.aten.sin.default(arg0_1);  arg0_1 = None
            add: "f32[5, 3][3, 1]cuda:0" = torch.ops.aten.add.Tensor(sin, 1);  sin = None
            return (add,)

    class false_graph_0(torch.nn.Module):
        def forward(self, arg0_1: "f32[5, 3][3, 1]cuda:0"):
            # File: /work/main/tests/gpu/trace_graphs.py:112 in <lambda>, code: return torch.cond(x.sum() > 0, lambda t: t.sin() + 1, lambda t: t.cos() * 2, (x,))
            cos: "f32[5, 3][3, 1]cuda:0" = torch.ops.aten.cos.default(arg0_1);  arg0_1 = None
            mul: "f32[5, 3][3, 1]cuda:0" = torch.ops.aten.mul.Tensor(cos, 2);  cos = None
            return (mul,)

