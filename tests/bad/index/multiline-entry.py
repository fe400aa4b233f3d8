{
    (None, 0, "inductor"): ("k0", "p0", 0),
    (8, 0, "inductor"): ("k1", "p1", 0),
    (16, "zero", "inductor"): ("k2", "p2", 0),
}
