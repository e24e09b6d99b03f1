import sys
from pathlib import Path

# fuzzer.py is imported by these tests and by benchmarks/fuzz.py, from this folder.
sys.path.insert(0, str(Path(__file__).resolve().parent))
