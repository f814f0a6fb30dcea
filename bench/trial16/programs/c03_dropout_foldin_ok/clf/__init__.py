from clf.model import Classifier
from clf.train import train
