#!/usr/bin/env python3
"""Data with local structure for partitioned training: the target is a sum of random Gaussian
bumps of varied widths plus noise, over inputs uniform in [0, 1]^d.

    python3 bench/make_bumps.py ROWS DIMS BUMPS OUT.csv [--seed S] [--noise N] [--test FILE --test-rows N]

Bump centres are uniform in the cube, widths log-uniform in [0.02, 0.15] (times sqrt(d / 2),
so that a bump covers a similar share of the cube whatever d), heights uniform in [-1, 1].
Written with numpy (no other dependency); the same seed gives the same file."""
import argparse

import numpy as np


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", type=int)
    parser.add_argument("dims", type=int)
    parser.add_argument("bumps", type=int)
    parser.add_argument("out")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--noise", type=float, default=0.05)
    parser.add_argument("--test", help="also write held-out rows of the same bumps here")
    parser.add_argument("--test-rows", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    centres = rng.random((args.bumps, args.dims))
    widths = np.exp(rng.uniform(np.log(0.02), np.log(0.15), args.bumps)) * np.sqrt(args.dims / 2.0)
    heights = rng.uniform(-1.0, 1.0, args.bumps)
    header = ",".join(["x%d" % j for j in range(args.dims)] + ["y"])
    for path, rows in ((args.out, args.rows), (args.test, args.test_rows)):
        if not path:
            continue
        x = rng.random((rows, args.dims))
        y = np.zeros(rows)
        for start in range(0, rows, 8192):  # bounded memory: rows x bumps x dims per block
            block = x[start:start + 8192]
            d2 = ((block[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)
            y[start:start + 8192] = (heights * np.exp(-d2 / (2.0 * widths ** 2))).sum(axis=1)
        y += args.noise * rng.standard_normal(rows)
        np.savetxt(path, np.column_stack([x, y]), delimiter=",", fmt="%.6g", header=header, comments="")


if __name__ == "__main__":
    main()
