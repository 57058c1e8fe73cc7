"""Pure-numba kernels (nopython only). Nothing in here imports scenario objects."""
