{(1e300, 0, "inductor"): ("k", "p", 0)}
