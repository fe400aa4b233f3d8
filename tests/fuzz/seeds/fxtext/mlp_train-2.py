class inner_f(torch.nn.Module):
    def forward(
        self,
        primals,
        tangents,
    ):
        primals_1: "f32[64, 32][32, 1]cuda:0"  # PlainAOTInput(idx=0)
        primals_2: "f32[64][1]cuda:0"  # PlainAOTInput(idx=1)
        primals_3: "f32[16, 32][32, 1]cuda:0"  # PlainAOTInput(idx=2)
        primals_4: "f32[64][1]cuda:0"  # PlainAOTInput(idx=3)
        primals_5: "f32[64][1]cuda:0"  # PlainAOTInput(idx=4)
        primals_6: "f32[8, 64][64, 1]cuda:0"  # PlainAOTInput(idx=5)
        primals_7: "f32[8][1]cuda:0"  # PlainAOTInput(idx=6)
        tangents_1: "f32[16, 8][8, 1]cuda:0"  # TangentAOTInput(output=PlainAOTOutput(idx=0))
        primals_1, primals_2, primals_3, primals_4, primals_5, primals_6, primals_7, tangents_1, = fx_pytree.tree_flatten_spec([primals, tangents], self._in_spec)
        # No stacktrace found for following nodes
        permute: "f32[32, 64][1, 32]cuda:0" = torch.ops.aten.permute.default(primals_1, [1, 0]);  primals_1 = None
        addmm: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.addmm.default(primals_2, primals_3, permute);  primals_2 = permute = None
        mul: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.mul.Tensor(addmm, 0.5)
        mul_1: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.mul.Tensor(addmm, 0.7071067811865476)
        erf: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.erf.default(mul_1);  mul_1 = None
        add: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.add.Tensor(erf, 1);  erf = None
        mul_2: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.mul.Tensor(mul, add);  mul = add = None
        var_mean = torch.ops.aten.var_mean.correction(mul_2, [1], correction = 0, keepdim = True)
        getitem: "f32[16, 1][1, 1]cuda:0" = var_mean[0]
        getitem_1: "f32[16, 1][1, 1]cuda:0" = var_mean[1];  var_mean = None
        add_1: "f32[16, 1][1, 1]cuda:0" = torch.ops.aten.add.Tensor(getitem, 1e-05);  getitem = None
        rsqrt: "f32[16, 1][1, 1]cuda:0" = torch.ops.aten.rsqrt.default(add_1);  add_1 = None
        sub: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.sub.Tensor(mul_2, getitem_1)
        mul_3: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.mul.Tensor(sub, rsqrt);  sub = None
        mul_4: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.mul.Tensor(mul_3, primals_4);  mul_3 = None
        add_2: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.add.Tensor(mul_4, primals_5);  mul_4 = primals_5 = None
        permute_1: "f32[64, 8][1, 64]cuda:0" = torch.ops.aten.permute.default(primals_6, [1, 0]);  primals_6 = None
        addmm_1: "f32[16, 8][8, 1]cuda:0" = torch.ops.aten.addmm.default(primals_7, add_2, permute_1);  primals_7 = None
        permute_2: "f32[8, 64][64, 1]cuda:0" = torch.ops.aten.permute.default(permute_1, [1, 0]);  permute_1 = None
        mm: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.mm.default(tangents_1, permute_2);  permute_2 = None
        permute_3: "f32[8, 16][1, 8]cuda:0" = torch.ops.aten.permute.default(tangents_1, [1, 0])
        mm_1: "f32[8, 64][64, 1]cuda:0" = torch.ops.aten.mm.default(permute_3, add_2);  permute_3 = add_2 = None
        permute_4: "f32[64, 8][1, 64]cuda:0" = torch.ops.aten.permute.default(mm_1, [1, 0]);  mm_1 = None
        sum_1: "f32[1, 8][8, 1]cuda:0" = torch.ops.aten.sum.dim_IntList(tangents_1, [0], True);  tangents_1 = None
        view: "f32[8][1]cuda:0" = torch.ops.aten.view.default(sum_1, [8]);  sum_1 = None
        permute_5: "f32[8, 64][64, 1]cuda:0" = torch.ops.aten.permute.default(permute_4, [1, 0]);  permute_4 = None
        sub_1: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.sub.Tensor(mul_2, getitem_1);  mul_2 = getitem_1 = None
        mul_5: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.mul.Tensor(sub_1, rsqrt);  sub_1 = None
        mul_6: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.mul.Tensor(mm, primals_4);  primals_4 = None
        mul_7: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.mul.Tensor(mul_6, 64)
        sum_2: "f32[16, 1][1, 1]cuda:0" = torch.ops.aten.sum.dim_IntList(mul_6, [1], True)
        mul_8: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.mul.Tensor(mul_6, mul_5);  mul_6 = None
        sum_3: "f32[16, 1][1, 1]cuda:0" = torch.ops.aten.sum.dim_IntList(mul_8, [1], True);  mul_8 = None
        mul_9: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.mul.Tensor(mul_5, sum_3);  sum_3 = None
        sub_2: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.sub.Tensor(mul_7, sum_2);  mul_7 = sum_2 = None
        sub_3: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.sub.Tensor(sub_2, mul_9);  sub_2 = mul_9 = None
        div: "f32[16, 1][1, 1]cuda:0" = torch.ops.aten.div.Tensor(rsqrt, 64);  rsqrt = None
        mul_10: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.mul.Tensor(div, sub_3);  div = sub_3 = None
        mul_11: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.mul.Tensor(mm, mul_5);  mul_5 = None
        sum_4: "f32[64][1]cuda:0" = torch.ops.aten.sum.dim_IntList(mul_11, [0]);  mul_11 = None
        sum_5: "f32[64][1]cuda:0" = torch.ops.aten.sum.dim_IntList(mm, [0]);  mm = None
        mul_12: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.mul.Tensor(addmm, 0.7071067811865476)
        erf_1: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.erf.default(mul_12);  mul_12 = None
        add_3: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.add.Tensor(erf_1, 1);  erf_1 = None
        mul_13: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.mul.Tensor(add_3, 0.5);  add_3 = None
        mul_14: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.mul.Tensor(addmm, addmm)
        mul_15: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.mul.Tensor(mul_14, -0.5);  mul_14 = None
        exp: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.exp.default(mul_15);  mul_15 = None
        mul_16: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.mul.Tensor(exp, 0.3989422804014327);  exp = None
        mul_17: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.mul.Tensor(addmm, mul_16);  addmm = mul_16 = None
        add_4: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.add.Tensor(mul_13, mul_17);  mul_13 = mul_17 = None
        mul_18: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.mul.Tensor(mul_10, add_4);  mul_10 = add_4 = None
        permute_6: "f32[64, 16][1, 64]cuda:0" = torch.ops.aten.permute.default(mul_18, [1, 0])
        mm_2: "f32[64, 32][32, 1]cuda:0" = torch.ops.aten.mm.default(permute_6, primals_3);  permute_6 = primals_3 = None
        permute_7: "f32[32, 64][1, 32]cuda:0" = torch.ops.aten.permute.default(mm_2, [1, 0]);  mm_2 = None
        sum_6: "f32[1, 64][64, 1]cuda:0" = torch.ops.aten.sum.dim_IntList(mul_18, [0], True);  mul_18 = None
        view_1: "f32[64][1]cuda:0" = torch.ops.aten.view.default(sum_6, [64]);  sum_6 = None
        permute_8: "f32[64, 32][32, 1]cuda:0" = torch.ops.aten.permute.default(permute_7, [1, 0]);  permute_7 = None
        return pytree.tree_unflatten([
            addmm_1,  # PlainAOTOutput(idx=0)
            permute_8,  # GradAOTOutput(grad_of=PlainAOTInput(idx=0))
            view_1,  # GradAOTOutput(grad_of=PlainAOTInput(idx=1))
            None,  # None
            sum_4,  # GradAOTOutput(grad_of=PlainAOTInput(idx=3))
            sum_5,  # GradAOTOutput(grad_of=PlainAOTInput(idx=4))
            permute_5,  # GradAOTOutput(grad_of=PlainAOTInput(idx=5))
            view,  # GradAOTOutput(grad_of=PlainAOTInput(idx=6))
        ], self._out_spec)

