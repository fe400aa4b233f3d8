{(None, 1.5, "inductor"): ("k", "p", 0)}
