class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "Sym(s77)", arg1_1: "Sym(s27)", arg2_1: "f32[s77, s27, 32][32*s27, 32, 1]cuda:0", arg3_1: "f32[32][1]cuda:0", arg4_1: "f32[32][1]cuda:0", arg5_1: "f32[96, 32][32, 1]cuda:0", arg6_1: "f32[96][1]cuda:0", arg7_1: "f32[32, 32][32, 1]cuda:0", arg8_1: "f32[32][1]cuda:0", arg9_1: "f64[][]cpu"):
        # File: /work/main/tests/gpu/trace_graphs.py:98 in forward, code: q, k, v = s.qkv(s.ln(x)).split(32, dim=-1)
        var_mean = torch.ops.aten.var_mean.correction(arg2_1, [2], correction = 0, keepdim = True)
        getitem: "f32[s77, s27, 1][s27, 1, 1]cuda:0" = var_mean[0]
        getitem_1: "f32[s77, s27, 1][s27, 1, 1]cuda:0" = var_mean[1];  var_mean = None
        sub: "f32[s77, s27, 32][32*s27, 32, 1]cuda:0" = torch.ops.aten.sub.Tensor(arg2_1, getitem_1);  getitem_1 = None
        add: "f32[s77, s27, 1][s27, 1, 1]cuda:0" = torch.ops.aten.add.Tensor(getitem, 1e-05);  getitem = None
        rsqrt: "f32[s77, s27, 1][s27, 1, 1]cuda:0" = torch.ops.aten.rsqrt.default(add);  add = None
        mul_4: "f32[s77, s27, 32][32*s27, 32, 1]cuda:0" = torch.ops.aten.mul.Tensor(sub, rsqrt);  sub = rsqrt = None
        mul_5: "f32[s77, s27, 32][32*s27, 32, 1]cuda:0" = torch.ops.aten.mul.Tensor(mul_4, arg3_1);  mul_4 = arg3_1 = None
        add_1: "f32[s77, s27, 32][32*s27, 32, 1]cuda:0" = torch.ops.aten.add.Tensor(mul_5, arg4_1);  mul_5 = arg4_1 = None
        mul_19: "Sym(s27 * s77)" = arg0_1 * arg1_1
        view: "f32[s27*s77, 32][32, 1]cuda:0" = torch.ops.aten.reshape.default(add_1, [mul_19, 32]);  add_1 = None
        permute: "f32[32, 96][1, 32]cuda:0" = torch.ops.aten.permute.default(arg5_1, [1, 0]);  arg5_1 = None
        addmm: "f32[s27*s77, 96][96, 1]cuda:0" = torch.ops.aten.addmm.default(arg6_1, view, permute);  arg6_1 = view = permute = None
        view_1: "f32[s77, s27, 96][96*s27, 96, 1]cuda:0" = torch.ops.aten.reshape.default(addmm, [arg0_1, arg1_1, 96]);  addmm = None
        split = torch.ops.aten.split.Tensor(view_1, 32, -1);  view_1 = None
        getitem_2: "f32[s77, s27, 32][96*s27, 96, 1]cuda:0" = split[0]
        getitem_3: "f32[s77, s27, 32][96*s27, 96, 1]cuda:0" = split[1]
        getitem_4: "f32[s77, s27, 32][96*s27, 96, 1]cuda:0" = split[2];  split = None

        # File: /work/main/tests/gpu/trace_graphs.py:99 in forward, code: q = q.view(b, t, 4, 8).transpose(1, 2)
        view_2: "f32[s77, s27, 4, 8][96*s27, 96, 8, 1]cuda:0" = torch.ops.aten.reshape.default(getitem_2, [arg0_1, arg1_1, 4, 8]);  getitem_2 = None
        permute_1: "f32[s77, 4, s27, 8][96*s27, 8, 96, 1]cuda:0" = torch.ops.aten.permute.default(view_2, [0, 2, 1, 3]);  view_2 = None

        # File: /work/main/tests/gpu/trace_graphs.py:100 in forward, code: k = k.view(b, t, 4, 8).transpose(1, 2)
        view_3: "f32[s77, s27, 4, 8][96*s27, 96, 8, 1]cuda:0" = torch.ops.aten.reshape.default(getitem_3, [arg0_1, arg1_1, 4, 8]);  getitem_3 = None
        permute_2: "f32[s77, 4, s27, 8][96*s27, 8, 96, 1]cuda:0" = torch.ops.aten.permute.default(view_3, [0, 2, 1, 3]);  view_3 = None

        # File: /work/main/tests/gpu/trace_graphs.py:101 in forward, code: v = v.view(b, t, 4, 8).transpose(1, 2)
        view_4: "f32[s77, s27, 4, 8][96*s27, 96, 8, 1]cuda:0" = torch.ops.aten.reshape.default(getitem_4, [arg0_1, arg1_1, 4, 8]);  getitem_4 = None
        permute_3: "f32[s77, 4, s27, 8][96*s27, 8, 96, 1]cuda:0" = torch.ops.aten.permute.default(view_4, [0, 2, 1, 3]);  view_4 = None

        # File: /work/main/tests/gpu/trace_graphs.py:102 in forward, code: y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        _scaled_dot_product_efficient_attention = torch.ops.aten._scaled_dot_product_efficient_attention.default(permute_1, permute_2, permute_3, None, False, 0.0, True);  permute_1 = permute_2 = permute_3 = None
        getitem_5: "f32[s77, 4, s27, 8][32*s27, 8, 32, 1]cuda:0" = _scaled_dot_product_efficient_attention[0];  _scaled_dot_product_efficient_attention = None

        # File: /work/main/tests/gpu/trace_graphs.py:103 in forward, code: y = y.transpose(1, 2).reshape(b, t, c)
        permute_4: "f32[s77, s27, 4, 8][32*s27, 32, 8, 1]cuda:0" = torch.ops.aten.permute.default(getitem_5, [0, 2, 1, 3]);  getitem_5 = None
        view_5: "f32[s77, s27, 32][32*s27, 32, 1]cuda:0" = torch.ops.aten.reshape.default(permute_4, [arg0_1, arg1_1, 32]);  permute_4 = None

        # File: /work/main/tests/gpu/trace_graphs.py:104 in forward, code: return x + s.o(y) * scale
        view_6: "f32[s27*s77, 32][32, 1]cuda:0" = torch.ops.aten.reshape.default(view_5, [mul_19, 32]);  view_5 = mul_19 = None
        permute_5: "f32[32, 32][1, 32]cuda:0" = torch.ops.aten.permute.default(arg7_1, [1, 0]);  arg7_1 = None
        mm_default: "f32[s27*s77, 32][32, 1]cuda:0" = torch.ops.aten.mm.default(view_6, permute_5);  view_6 = permute_5 = None
        add_tensor: "f32[s27*s77, 32][32, 1]cuda:0" = torch.ops.aten.add.Tensor(arg8_1, mm_default);  arg8_1 = mm_default = None
        view_7: "f32[s77, s27, 32][32*s27, 32, 1]cuda:0" = torch.ops.aten.reshape.default(add_tensor, [arg0_1, arg1_1, 32]);  add_tensor = arg0_1 = arg1_1 = None

        # No stacktrace found for following nodes
        convert_element_type_default_1: "f32[][]cpu" = torch.ops.prims.convert_element_type.default(arg9_1, torch.float32);  arg9_1 = None
        mul_tensor: "f32[s77, s27, 32][32*s27, 32, 1]cuda:0" = torch.ops.aten.mul.Tensor(view_7, convert_element_type_default_1);  view_7 = convert_element_type_default_1 = None

        # File: /work/main/tests/gpu/trace_graphs.py:104 in forward, code: return x + s.o(y) * scale
        add_96: "f32[s77, s27, 32][32*s27, 32, 1]cuda:0" = torch.ops.aten.add.Tensor(arg2_1, mul_tensor);  arg2_1 = mul_tensor = None
        return (add_96,)

