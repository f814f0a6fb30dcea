import flax.linen as nn


class Classifier(nn.Module):
    n_classes: int = 10
    dropout_rate: float = 0.5

    @nn.compact
    def __call__(self, x, *, train: bool):
        x = nn.relu(nn.Dense(128)(x))
        x = nn.Dropout(self.dropout_rate, deterministic=not train)(x)
        return nn.Dense(self.n_classes)(x)
