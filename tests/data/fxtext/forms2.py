# More of what torch.fx's code generator writes (torch/fx/graph.py, CodeGen._gen_python_code,
# torch 2.11), one branch a statement, written by hand for tests/cli/graphs.sh; each value is
# the one torch's FakeTensor propagation gives:
#   a placeholder with a default (FX prints its first arg in the signature) and *args;
#   call_module on a numbered child (_format_target: getattr(self.layers, "0")), get_attr
#   of a nested parameter, getattr of a non-identifier attribute and a 3-argument getattr;
#   every magic method FX pretty-prints (a + b, a == b, ~a, a[i]) and in-place operators
#   (a -= b; x = a); a Sym annotation of a SymBool and a SymFloat; annotations of a tensor
#   subclass and of a TensorMetadata (no strides); keyword arguments written "k = v"; a
#   single-value return.
class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[4, 8][8, 1]cuda:0", L_n_: "Sym(4)", *args, L_scale_: "f32[][]cuda:0" = 2.0):
        l_x_ = L_x_
        l_n_ = L_n_
        l_scale_ = L_scale_
        layers_0 = getattr(self.layers, "0")(l_x_)
        layers_0_weight: "f32[8, 8][8, 1]cuda:0" = getattr(self.layers, "0").weight
        t: "f32[8, 8][1, 8]cuda:0" = layers_0_weight.t();  layers_0_weight = None
        add: "f32[4, 8][8, 1]cuda:0" = l_x_ + l_x_
        sub: "f32[4, 8][8, 1]cuda:0" = add - 1.5
        mul: "f32[4, 8][8, 1]cuda:0" = 2 * sub
        truediv: "f32[4, 8][8, 1]cuda:0" = mul / l_scale_
        floordiv: "f32[4, 8][8, 1]cuda:0" = truediv // 3
        mod: "f32[4, 8][8, 1]cuda:0" = floordiv % 2
        pow_1: "f32[4, 8][8, 1]cuda:0" = mod ** 2
        matmul: "f32[4, 8][8, 1]cuda:0" = pow_1 @ t;  pow_1 = t = None
        eq: "b8[4, 8][8, 1]cuda:0" = matmul == add
        ne: "b8[4, 8][8, 1]cuda:0" = matmul != add
        lt: "b8[4, 8][8, 1]cuda:0" = matmul < add
        ge: "b8[4, 8][8, 1]cuda:0" = matmul >= add
        and_: "b8[4, 8][8, 1]cuda:0" = eq & ne
        or_: "b8[4, 8][8, 1]cuda:0" = lt | ge
        xor: "b8[4, 8][8, 1]cuda:0" = and_ ^ or_
        invert: "b8[4, 8][8, 1]cuda:0" = ~xor
        pos: "f32[4, 8][8, 1]cuda:0" = +matmul
        getitem: "f32[8][1]cuda:0" = matmul[0]
        matmul -= add;  isub: "f32[4, 8][8, 1]cuda:0" = matmul;  matmul = None
        isub *= 2;  imul: "f32[4, 8][8, 1]cuda:0" = isub;  isub = None
        sym_size_int: "Sym(4)" = torch.ops.aten.sym_size.int(l_x_, 0)
        gt: "Sym(True)" = sym_size_int > 2
        sym_float: "Sym(4.0)" = torch.sym_float(sym_size_int);  sym_size_int = None
        mean: "f32[4][1]cuda:0" = imul.mean(dim = -1, keepdim = False)
        attr = getattr(mean, "T")
        dflt = getattr(mean, "missing", None)
        clamp: "Subclass(f32[4][1]cuda:0)" = torch.clamp(mean, min = 0.0)
        relu: "f32[4]" = torch.relu(clamp);  clamp = None
        return relu
