{(None, 0, "inductor"): ("k", "p", 1000000000000)}
