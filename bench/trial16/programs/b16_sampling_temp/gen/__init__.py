from gen.sampling import sample_token, set_temperature
