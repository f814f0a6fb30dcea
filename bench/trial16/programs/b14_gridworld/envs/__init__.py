from envs.gridworld import GridWorld, EnvState
