from .sampling import reparameterize, sample_prior_and_posterior
