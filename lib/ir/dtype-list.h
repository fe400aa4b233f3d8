/*
 * X-macro of torch dtypes: DT(ENUM, "name as str(dtype) without torch.",
 * itemsize in bytes, kind, export) where kind is B(ool), U(nsigned int), I(nt),
 * F(loat), C(omplex), and export is the number torch.export's serialized ScalarType
 * gives it (torch/_export/serde/schema.py; 0: none). Order within a kind follows torch's
 * promotion order. The one table of dtype names and numbers.
 */
DT(BOOL, "bool", 1, 'B', 12)
DT(UINT8, "uint8", 1, 'U', 1)
DT(UINT16, "uint16", 2, 'U', 28)
DT(UINT32, "uint32", 4, 'U', 0)
DT(UINT64, "uint64", 8, 'U', 0)
DT(INT8, "int8", 1, 'I', 2)
DT(INT16, "int16", 2, 'I', 3)
DT(INT32, "int32", 4, 'I', 4)
DT(INT64, "int64", 8, 'I', 5)
DT(FLOAT8_E5M2, "float8_e5m2", 1, 'F', 30)
DT(FLOAT8_E4M3FN, "float8_e4m3fn", 1, 'F', 29)
DT(FLOAT8_E5M2FNUZ, "float8_e5m2fnuz", 1, 'F', 32)
DT(FLOAT8_E4M3FNUZ, "float8_e4m3fnuz", 1, 'F', 31)
DT(FLOAT16, "float16", 2, 'F', 6)
DT(BFLOAT16, "bfloat16", 2, 'F', 13)
DT(FLOAT32, "float32", 4, 'F', 7)
DT(FLOAT64, "float64", 8, 'F', 8)
DT(COMPLEX32, "complex32", 4, 'C', 9)
DT(COMPLEX64, "complex64", 8, 'C', 10)
DT(COMPLEX128, "complex128", 16, 'C', 11)
