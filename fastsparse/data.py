"""The path of fastsparse 0.1 (`fastsparse.data`), kept for one release: its names now live in `fastsparse.experiments.data`."""
from .experiments.data import FASHION_MNIST_PATH, digits_dls, fashion_mnist_dls, lenet5, lenet_300_100, read_idx, resnet18_cifar, small_cnn, tensor_dls

__all__ = ['FASHION_MNIST_PATH', 'digits_dls', 'fashion_mnist_dls', 'lenet5', 'lenet_300_100', 'read_idx', 'resnet18_cifar', 'small_cnn', 'tensor_dls']
