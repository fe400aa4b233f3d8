# A split graph as vLLM writes it into its compile cache (backends.py: "from __future__ import
# annotations\nimport torch\n" + split_gm.print_readable(), <lambda> renamed GraphModule), written
# by hand after split_module's output: submod_N classes, getitem of a piece's tuple, a piece
# that returns one value, s0 passed to every piece.
from __future__ import annotations
import torch
class GraphModule(torch.nn.Module):
    def forward(self, s0: "Sym(s0)", L_x_: "bf16[s0, 256][256, 1]cuda:0", L_w_: "bf16[256][1]cuda:0", L_q_: "bf16[s0, 4, 64][256, 64, 1]cuda:0"):
        l_x_ = L_x_
        l_w_ = L_w_
        l_q_ = L_q_
        submod_0 = self.submod_0(l_x_, s0, l_w_);  l_x_ = None
        getitem = submod_0[0]
        getitem_1 = submod_0[1];  submod_0 = None
        submod_1 = self.submod_1(l_q_, getitem_1, s0);  l_q_ = None
        submod_2 = self.submod_2(getitem, submod_1, s0);  getitem = submod_1 = None
        return (submod_2,)

    class submod_0(torch.nn.Module):
        def forward(self, l_x_: "bf16[s0, 256][256, 1]cuda:0", s0: "Sym(s0)", l_w_: "bf16[256][1]cuda:0"):
            mul: "bf16[s0, 256][256, 1]cuda:0" = l_x_ * l_w_;  l_x_ = l_w_ = None
            relu: "bf16[s0, 256][256, 1]cuda:0" = torch.relu(mul)
            return (mul, relu)

    class submod_1(torch.nn.Module):
        def forward(self, l_q_: "bf16[s0, 4, 64][256, 64, 1]cuda:0", relu: "bf16[s0, 256][256, 1]cuda:0", s0: "Sym(s0)"):
            attn: "bf16[s0, 4, 64][256, 64, 1]cuda:0" = torch.ops.vllm.unified_attention.default(l_q_, l_q_, l_q_, 'layers.0');  l_q_ = None
            return attn

    class submod_2(torch.nn.Module):
        def forward(self, mul: "bf16[s0, 256][256, 1]cuda:0", attn: "bf16[s0, 4, 64][256, 64, 1]cuda:0", s0: "Sym(s0)"):
            view: "bf16[s0, 256][256, 1]cuda:0" = attn.view(s0, 256);  attn = None
            add: "bf16[s0, 256][256, 1]cuda:0" = mul + view;  mul = view = None
            return add
