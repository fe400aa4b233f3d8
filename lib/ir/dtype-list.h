/*
 * X-macro of torch dtypes: DT(ENUM, "name as str(dtype) without torch.",
 * itemsize in bytes, kind) where kind is B(ool), U(nsigned int), I(nt),
 * F(loat), C(omplex). Order within a kind follows torch's promotion order.
 */
DT(BOOL, "bool", 1, 'B')
DT(UINT8, "uint8", 1, 'U')
DT(UINT16, "uint16", 2, 'U')
DT(UINT32, "uint32", 4, 'U')
DT(UINT64, "uint64", 8, 'U')
DT(INT8, "int8", 1, 'I')
DT(INT16, "int16", 2, 'I')
DT(INT32, "int32", 4, 'I')
DT(INT64, "int64", 8, 'I')
DT(FLOAT8_E5M2, "float8_e5m2", 1, 'F')
DT(FLOAT8_E4M3FN, "float8_e4m3fn", 1, 'F')
DT(FLOAT8_E5M2FNUZ, "float8_e5m2fnuz", 1, 'F')
DT(FLOAT8_E4M3FNUZ, "float8_e4m3fnuz", 1, 'F')
DT(FLOAT16, "float16", 2, 'F')
DT(BFLOAT16, "bfloat16", 2, 'F')
DT(FLOAT32, "float32", 4, 'F')
DT(FLOAT64, "float64", 8, 'F')
DT(COMPLEX32, "complex32", 4, 'C')
DT(COMPLEX64, "complex64", 8, 'C')
DT(COMPLEX128, "complex128", 16, 'C')
