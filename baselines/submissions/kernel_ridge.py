"""Kernel ridge regression with a Gaussian kernel, measured in a metric fitted to the labels.

The release whitens the draw onto its top 60 principal directions, so every direction, noise
included, arrives with unit variance, and a plain Gaussian kernel weighs them all alike. This
method first whitens the within-class scatter instead: directions along which the classes differ
are stretched, the rest are left near unit scale. The fit is then one Cholesky solve of the
kernel matrix of the training rows against one-hot labels: closed form, no random numbers, the
same labels on every run. About 3.7% error on MNIST draws (difficulty 1 allows 5.40%).
"""

import torch

CLASSES = 10
BANDWIDTH = 0.85    # the kernel's width, as a fraction of the root of the rows' total variance
RIDGE = 0.01        # added to the kernel matrix's diagonal, whose entries are 1
EIGEN_FLOOR = 1e-3  # the smallest within-class variance a direction is divided by


def method(train_x, train_y, test_x):
    # The within-class scatter, and the map that whitens it.
    means = torch.zeros(CLASSES, train_x.shape[1], dtype=train_x.dtype, device=train_x.device)
    means.index_add_(0, train_y, train_x)
    counts = torch.bincount(train_y, minlength=CLASSES).clamp_min(1).to(train_x.dtype)
    means = means / counts[:, None]
    within = train_x - means.index_select(0, train_y)
    values, vectors = torch.linalg.eigh(within.t().mm(within) / train_x.shape[0])
    metric = vectors / values.clamp_min(EIGEN_FLOOR).sqrt()
    a, b = train_x.mm(metric), test_x.mm(metric)

    # Gaussian kernel exp(-gamma |u - v|^2), its width set by the total variance of the rows.
    centered = a - a.mean(0)
    gamma = 0.5 / (BANDWIDTH * BANDWIDTH * (centered * centered).sum() / (a.shape[0] - 1))
    a2, b2 = (a * a).sum(1), (b * b).sum(1)
    kernel = torch.exp(-gamma * (a2[:, None] + a2[None, :] - 2.0 * a.mm(a.t())).clamp_min(0.0))
    kernel.diagonal().add_(RIDGE)
    factor = torch.linalg.cholesky(kernel)
    del kernel
    targets = torch.nn.functional.one_hot(train_y, CLASSES).to(train_x.dtype)
    weights = torch.cholesky_solve(targets, factor)
    del factor
    cross = torch.exp(-gamma * (b2[:, None] + a2[None, :] - 2.0 * b.mm(a.t())).clamp_min(0.0))
    return cross.mm(weights).argmax(1)


if __name__ == "__main__":
    import mnist

    print(mnist.score(method, difficulty=1))
