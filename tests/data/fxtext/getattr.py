# Forms FX prints (graph.py): a two-argument getattr with a name as x.attr (_format_target),
# a three-argument one as a call; -x, ~x (magic_methods); placeholder defaults and *args.
class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[3][1]cpu", y = 3, *args, z: "f32[3][1]cpu" = None):
        l_x_ = L_x_
        a: "f32[3][1]cpu" = l_x_ * y
        b = -a
        c = ~b
        e = a.shape
        f = getattr(a, 'T')
        g = builtins.getattr(a, 'foo', None)
        h: "f32[3][1]cpu" = torch.ops.aten.add.Tensor(a, 1, alpha = 2)
        return (h, b)
