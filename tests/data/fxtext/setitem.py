# operator.setitem as torch.fx prints it (graph.py inplace_methods: "{}[{}] = {}", then the
# statement that names the result): transformers' Mixtral routing writes inv_perm[perm] = arange.
class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[8, 4][4, 1]cuda:0", L_perm_: "i64[8][1]cuda:0"):
        l_x_ = L_x_
        l_perm_ = L_perm_
        inv_perm: "i64[8][1]cuda:0" = torch.empty_like(l_perm_)
        arange_5: "i64[8][1]cuda:0" = torch.arange(8, device = device(type='cuda', index=0))
        inv_perm[l_perm_] = arange_5;  setitem = inv_perm;  arange_5 = setitem = None
        y: "f32[8, 4][4, 1]cuda:0" = l_x_[inv_perm];  l_x_ = inv_perm = None
        y[(slice(None, None, None), 0)] = 1.0;  setitem_1 = y
        return (y,)
