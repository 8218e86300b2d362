"""A jit-compiled MLP trained for 200 steps on fixed data, printing its loss every 50 steps (issue 29).

Run plain and under each gpufl engine: the printed losses must be identical, or gpufl must say why not (an engine
that serializes kernels changes the order of XLA's atomic reductions). XLA launches through CUDA graphs, so the run
also shows whether graph kernels keep their times under an engine.
"""
import os
import sys

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402


def init_params(key, sizes):
    params = []
    for n_in, n_out in zip(sizes[:-1], sizes[1:]):
        key, sub = jax.random.split(key)
        params.append((jax.random.normal(sub, (n_in, n_out)) * (1.0 / n_in) ** 0.5, jnp.zeros(n_out)))
    return params


def forward(params, x):
    for w, b in params[:-1]:
        x = jax.nn.relu(x @ w + b)
    w, b = params[-1]
    return x @ w + b


def loss_fn(params, x, y):
    return jnp.mean((forward(params, x) - y) ** 2)


@jax.jit
def step(params, x, y):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    return [(w - 0.01 * gw, b - 0.01 * gb) for (w, b), (gw, gb) in zip(params, grads)], loss


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    key = jax.random.PRNGKey(0)
    kx, ky, kp = jax.random.split(key, 3)
    x = jax.random.normal(kx, (4096, 256))
    y = jnp.sin(x[:, :16]) + 0.1 * jax.random.normal(ky, (4096, 16))
    params = init_params(kp, [256, 512, 512, 16])
    for i in range(1, steps + 1):
        params, loss = step(params, x, y)
        if i % 50 == 0:
            print(f"step {i} loss {float(loss):.6f}", flush=True)


if __name__ == "__main__":
    main()
