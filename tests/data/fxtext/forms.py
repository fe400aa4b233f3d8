from __future__ import annotations
import torch

# What torch.fx's code generator writes (print_readable), one form a statement: a graph
# written by hand for tests/cli/graphs.sh; each value follows the rules torch's
# FakeTensor propagation gives.
class GraphModule(torch.nn.Module):
    class wrap_body_0(torch.nn.Module):
        def forward(self, l_x_: "f32[s0, 8][8, 1]cuda:0"):
            sin: "f32[s0, 8][8, 1]cuda:0" = torch.sin(l_x_);  l_x_ = None
            return (sin,)

    def forward(
        self,
        s0: "Sym(s0)",  # the batch
        L_x_: "f32[s0, 8][8, 1]cuda:0",
        L_w_: "f16[8, 8][1, 8]cuda:0",
    ):
        l_x_ = L_x_
        l_w_ = L_w_
        # File: /home/u/model.py:12 in forward, code: y = x.to(torch.float16) @ w
        to: "f16[s0, 8][8, 1]cuda:0" = l_x_.to(torch.float16)
        y: "f16[s0, 8][8, 1]cuda:0" = to @ l_w_;  to = l_w_ = None

        # File: /home/u/model.py:13 in forward, code: y += 1
        y += 1;  y_1: "f16[s0, 8][8, 1]cuda:0" = y;  y = None

        # No stacktrace found for following nodes
        wrap_body_0 = self.wrap_body_0
        wrap = torch.ops.higher_order.wrap(wrap_body_0, l_x_);  wrap_body_0 = None
        getitem: "f32[s0, 8][8, 1]cuda:0" = wrap[0];  wrap = None
        neg: "f32[s0, 8][8, 1]cuda:0" = -getitem;  getitem = None
        size = l_x_.size(0)
        cl: "f32[s0, 8][8, 1]cuda:0" = torch.empty_like(neg, memory_format = torch.contiguous_format, device = device(type='cuda', index=0))
        sl: "f32[s0, 4][8, 1]cuda:0" = cl[(slice(None, None, None), slice(None, 4, None))];  cl = None
        pick: "f32[2, 8][8, 1]cuda:0" = l_x_[[1, 0]];  l_x_ = None
        return (y_1, neg, sl, pick, size)
