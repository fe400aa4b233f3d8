{(None, 0, "inductor"): ("k", "p", 0), (1, "x", "inductor"): ("k", "p", 0)}
