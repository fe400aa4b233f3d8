class GraphModule(torch.nn.Module):
    def forward(self, s77: "Sym(s77)", s27: "Sym(s27)", L_x_: "f32[s77, s27, 32][32*s27, 32, 1]cuda:0", L_s_modules_ln_parameters_weight_: "f32[32][1]cuda:0", L_s_modules_ln_parameters_bias_: "f32[32][1]cuda:0", L_s_modules_qkv_parameters_weight_: "f32[96, 32][32, 1]cuda:0", L_s_modules_qkv_parameters_bias_: "f32[96][1]cuda:0", L_s_modules_o_parameters_weight_: "f32[32, 32][32, 1]cuda:0", L_s_modules_o_parameters_bias_: "f32[32][1]cuda:0", L_scale_: "f64[][]cpu"):
        l_x_ = L_x_
        l_s_modules_ln_parameters_weight_ = L_s_modules_ln_parameters_weight_
        l_s_modules_ln_parameters_bias_ = L_s_modules_ln_parameters_bias_
        l_s_modules_qkv_parameters_weight_ = L_s_modules_qkv_parameters_weight_
        l_s_modules_qkv_parameters_bias_ = L_s_modules_qkv_parameters_bias_
        l_s_modules_o_parameters_weight_ = L_s_modules_o_parameters_weight_
        l_s_modules_o_parameters_bias_ = L_s_modules_o_parameters_bias_
        l_scale_ = L_scale_

        # File: /work/main/tests/gpu/trace_graphs.py:97 in forward, code: b, t, c = x.shape
        size = l_x_.size()
        getitem_2: "Sym(32)" = size[2];  size = None

        # File: /work/main/tests/gpu/trace_graphs.py:98 in forward, code: q, k, v = s.qkv(s.ln(x)).split(32, dim=-1)
        layer_norm: "f32[s77, s27, 32][32*s27, 32, 1]cuda:0" = torch.nn.functional.layer_norm(l_x_, (32,), l_s_modules_ln_parameters_weight_, l_s_modules_ln_parameters_bias_, 1e-05);  l_s_modules_ln_parameters_weight_ = l_s_modules_ln_parameters_bias_ = None
        linear: "f32[s77, s27, 96][96*s27, 96, 1]cuda:0" = torch._C._nn.linear(layer_norm, l_s_modules_qkv_parameters_weight_, l_s_modules_qkv_parameters_bias_);  layer_norm = l_s_modules_qkv_parameters_weight_ = l_s_modules_qkv_parameters_bias_ = None
        split = linear.split(32, dim = -1);  linear = None
        q: "f32[s77, s27, 32][96*s27, 96, 1]cuda:0" = split[0]
        k: "f32[s77, s27, 32][96*s27, 96, 1]cuda:0" = split[1]
        v: "f32[s77, s27, 32][96*s27, 96, 1]cuda:0" = split[2];  split = None

        # File: /work/main/tests/gpu/trace_graphs.py:99 in forward, code: q = q.view(b, t, 4, 8).transpose(1, 2)
        view: "f32[s77, s27, 4, 8][96*s27, 96, 8, 1]cuda:0" = q.view(s77, s27, 4, 8);  q = None
        q_1: "f32[s77, 4, s27, 8][96*s27, 8, 96, 1]cuda:0" = view.transpose(1, 2);  view = None

        # File: /work/main/tests/gpu/trace_graphs.py:100 in forward, code: k = k.view(b, t, 4, 8).transpose(1, 2)
        view_1: "f32[s77, s27, 4, 8][96*s27, 96, 8, 1]cuda:0" = k.view(s77, s27, 4, 8);  k = None
        k_1: "f32[s77, 4, s27, 8][96*s27, 8, 96, 1]cuda:0" = view_1.transpose(1, 2);  view_1 = None

        # File: /work/main/tests/gpu/trace_graphs.py:101 in forward, code: v = v.view(b, t, 4, 8).transpose(1, 2)
        view_2: "f32[s77, s27, 4, 8][96*s27, 96, 8, 1]cuda:0" = v.view(s77, s27, 4, 8);  v = None
        v_1: "f32[s77, 4, s27, 8][96*s27, 8, 96, 1]cuda:0" = view_2.transpose(1, 2);  view_2 = None

        # File: /work/main/tests/gpu/trace_graphs.py:102 in forward, code: y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        y: "f32[s77, 4, s27, 8][32*s27, 8, 32, 1]cuda:0" = torch._C._nn.scaled_dot_product_attention(q_1, k_1, v_1, is_causal = True);  q_1 = k_1 = v_1 = None

        # File: /work/main/tests/gpu/trace_graphs.py:103 in forward, code: y = y.transpose(1, 2).reshape(b, t, c)
        transpose_3: "f32[s77, s27, 4, 8][32*s27, 32, 8, 1]cuda:0" = y.transpose(1, 2);  y = None
        y_1: "f32[s77, s27, 32][32*s27, 32, 1]cuda:0" = transpose_3.reshape(s77, s27, getitem_2);  transpose_3 = s77 = s27 = getitem_2 = None

        # File: /work/main/tests/gpu/trace_graphs.py:104 in forward, code: return x + s.o(y) * scale
        linear_1: "f32[s77, s27, 32][32*s27, 32, 1]cuda:0" = torch._C._nn.linear(y_1, l_s_modules_o_parameters_weight_, l_s_modules_o_parameters_bias_);  y_1 = l_s_modules_o_parameters_weight_ = l_s_modules_o_parameters_bias_ = None
        item_1: "Sym(zf69)" = l_scale_.item();  l_scale_ = None
        mul: "f32[s77, s27, 32][32*s27, 32, 1]cuda:0" = linear_1 * item_1;  linear_1 = item_1 = None
        add: "f32[s77, s27, 32][32*s27, 32, 1]cuda:0" = l_x_ + mul;  l_x_ = mul = None
        return (add,)

