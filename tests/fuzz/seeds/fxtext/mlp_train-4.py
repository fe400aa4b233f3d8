class GraphModule(torch.nn.Module):
    def forward(self, primals_3: "f32[16, 32][32, 1]cuda:0", primals_4: "f32[64][1]cuda:0", primals_6: "f32[8, 64][64, 1]cuda:0", addmm: "f32[16, 64][64, 1]cuda:0", getitem_1: "f32[16, 1][1, 1]cuda:0", rsqrt: "f32[16, 1][1, 1]cuda:0", add_2: "f32[16, 64][64, 1]cuda:0", tangents_1: "f32[16, 8][8, 1]cuda:0"):
        # No stacktrace found for following nodes
        permute_1: "f32[64, 8][1, 64]cuda:0" = torch.ops.aten.permute.default(primals_6, [1, 0]);  primals_6 = None
        permute_2: "f32[8, 64][64, 1]cuda:0" = torch.ops.aten.permute.default(permute_1, [1, 0]);  permute_1 = None
        mm: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.mm.default(tangents_1, permute_2);  permute_2 = None
        permute_3: "f32[8, 16][1, 8]cuda:0" = torch.ops.aten.permute.default(tangents_1, [1, 0])
        mm_1: "f32[8, 64][64, 1]cuda:0" = torch.ops.aten.mm.default(permute_3, add_2);  permute_3 = add_2 = None
        sum_1: "f32[1, 8][8, 1]cuda:0" = torch.ops.aten.sum.dim_IntList(tangents_1, [0], True);  tangents_1 = None
        view: "f32[8][1]cuda:0" = torch.ops.aten.reshape.default(sum_1, [8]);  sum_1 = None
        mul_6: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.mul.Tensor(mm, primals_4);  primals_4 = None
        mul_7: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.mul.Tensor(mul_6, 64)
        sum_2: "f32[16, 1][1, 1]cuda:0" = torch.ops.aten.sum.dim_IntList(mul_6, [1], True)
        mul: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.mul.Tensor(addmm, 0.5)
        mul_1: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.mul.Tensor(addmm, 0.7071067811865476)
        erf: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.erf.default(mul_1);  mul_1 = None
        add: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.add.Tensor(erf, 1);  erf = None
        mul_2: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.mul.Tensor(mul, add);  mul = None
        sub: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.sub.Tensor(mul_2, getitem_1);  mul_2 = getitem_1 = None
        mul_3: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.mul.Tensor(sub, rsqrt);  sub = None
        mul_8: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.mul.Tensor(mul_6, mul_3);  mul_6 = None
        sum_3: "f32[16, 1][1, 1]cuda:0" = torch.ops.aten.sum.dim_IntList(mul_8, [1], True);  mul_8 = None
        mul_9: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.mul.Tensor(mul_3, sum_3);  sum_3 = None
        sub_2: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.sub.Tensor(mul_7, sum_2);  mul_7 = sum_2 = None
        sub_3: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.sub.Tensor(sub_2, mul_9);  sub_2 = mul_9 = None
        div: "f32[16, 1][1, 1]cuda:0" = torch.ops.aten.div.Tensor(rsqrt, 64);  rsqrt = None
        mul_10: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.mul.Tensor(div, sub_3);  div = sub_3 = None
        mul_11: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.mul.Tensor(mm, mul_3);  mul_3 = None
        sum_4: "f32[64][1]cuda:0" = torch.ops.aten.sum.dim_IntList(mul_11, [0]);  mul_11 = None
        sum_5: "f32[64][1]cuda:0" = torch.ops.aten.sum.dim_IntList(mm, [0]);  mm = None
        mul_13: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.mul.Tensor(add, 0.5);  add = None
        mul_14: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.mul.Tensor(addmm, addmm)
        mul_15: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.mul.Tensor(mul_14, -0.5);  mul_14 = None
        exp: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.exp.default(mul_15);  mul_15 = None
        mul_16: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.mul.Tensor(exp, 0.3989422804014327);  exp = None
        mul_17: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.mul.Tensor(addmm, mul_16);  addmm = mul_16 = None
        add_4: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.add.Tensor(mul_13, mul_17);  mul_13 = mul_17 = None
        mul_18: "f32[16, 64][64, 1]cuda:0" = torch.ops.aten.mul.Tensor(mul_10, add_4);  mul_10 = add_4 = None
        permute_6: "f32[64, 16][1, 64]cuda:0" = torch.ops.aten.permute.default(mul_18, [1, 0])
        mm_2: "f32[64, 32][32, 1]cuda:0" = torch.ops.aten.mm.default(permute_6, primals_3);  permute_6 = primals_3 = None
        sum_6: "f32[1, 64][64, 1]cuda:0" = torch.ops.aten.sum.dim_IntList(mul_18, [0], True);  mul_18 = None
        view_1: "f32[64][1]cuda:0" = torch.ops.aten.reshape.default(sum_6, [64]);  sum_6 = None
        return (mm_2, view_1, None, sum_4, sum_5, mm_1, view)

