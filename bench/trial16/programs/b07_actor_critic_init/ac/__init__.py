from .networks import MLP, create_train_states
