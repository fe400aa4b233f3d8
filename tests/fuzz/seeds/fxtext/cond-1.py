class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[5, 3][3, 1]cuda:0"):
        l_x_ = L_x_

        # File: /work/main/tests/gpu/trace_graphs.py:112 in forward, code: return torch.cond(x.sum() > 0, lambda t: t.sin() + 1, lambda t: t.cos() * 2, (x,))
        sum_1: "f32[][]cuda:0" = l_x_.sum()
        gt: "b8[][]cuda:0" = sum_1 > 0;  sum_1 = None
        cond_true_0 = self.cond_true_0
        cond_false_0 = self.cond_false_0
        cond = torch.ops.higher_order.cond(gt, cond_true_0, cond_false_0, (l_x_,));  gt = cond_true_0 = cond_false_0 = l_x_ = None
        getitem: "f32[5, 3][3, 1]cuda:0" = cond[0];  cond = None
        return (getitem,)

    class cond_true_0(torch.nn.Module):
        def forward(self, l_x_: "f32[5, 3][3, 1]cuda:0"):
            l_x__1 = l_x_

            # File: /work/main/tests/gpu/trace_graphs.py:112 in <lambda>, code: return torch.cond(x.sum() > 0, lambda t: t.sin() + 1, lambda t: t.cos() * 2, (x,))
            sin: "f32[5, 3][3, 1]cuda:0" = l_x__1.sin();  l_x__1 = None
            add: "f32[5, 3][3, 1]cuda:0" = sin + 1;  sin = None
            return (add,)

    class cond_false_0(torch.nn.Module):
        def forward(self, l_x_: "f32[5, 3][3, 1]cuda:0"):
            l_x__1 = l_x_

            # File: /work/main/tests/gpu/trace_graphs.py:112 in <lambda>, code: return torch.cond(x.sum() > 0, lambda t: t.sin() + 1, lambda t: t.cos() * 2, (x,))
            cos: "f32[5, 3][3, 1]cuda:0" = l_x__1.cos();  l_x__1 = None
            mul: "f32[5, 3][3, 1]cuda:0" = cos * 2;  cos = None
            return (mul,)

