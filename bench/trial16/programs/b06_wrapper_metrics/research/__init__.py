from research.compile import compiled
from research import metrics
