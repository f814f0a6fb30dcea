# Source: https://github.com/jaymody/picoGPT/issues/9 ("Using jax.numpy instead of numpy gives
# TypeError on macOS"), fix in PR #10: "The issue was that encoder returned a list, and
# np.append() expects a Jax array, not a list as arguments."
# Adapted: gpt2.py's generate loop with `import jax.numpy as np`; the encoder and the model
# forward pass are small stand-ins.
import jax.numpy as np


class Encoder:
    def encode(self, text):
        return [ord(c) % 50 for c in text]


def gpt2(inputs, wte, n_head):
    return np.ones((len(inputs), 50)) * np.arange(50.0)


def generate(inputs, params, n_head, n_tokens_to_generate):
    for _ in range(n_tokens_to_generate):
        logits = gpt2(inputs, **params, n_head=n_head)
        next_id = np.argmax(logits[-1])
        inputs = np.append(inputs, [next_id])  # expect: JAX501
    return list(inputs[len(inputs) - n_tokens_to_generate :])


def main(prompt, n_tokens_to_generate=3):
    encoder = Encoder()
    input_ids = encoder.encode(prompt)
    params = {"wte": None}
    try:
        output_ids = generate(input_ids, params, 2, n_tokens_to_generate)
        print(output_ids)
    except TypeError as err:
        print("TypeError:", str(err).splitlines()[0])


main("Alan Turing theorized")
