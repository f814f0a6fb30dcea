from agents.ddpg import GaussianExploration
