"""The machine a benchmark ran on, as its reports name it: the CPU's model and widest vector unit matter to every
figure here (the same commands rank fastsparse and SparseProp differently on two CPUs), so each report says which."""
import os, platform
from pathlib import Path

def cpu() -> str:
    "The CPU's model name and its widest vector extension (AVX-512, AVX2), where Linux says them; else the architecture"
    try: info = Path('/proc/cpuinfo').read_text()
    except OSError: return platform.processor() or platform.machine()
    name = next((l.split(':', 1)[1].strip() for l in info.splitlines() if l.startswith('model name')), platform.machine())
    flags = next((set(l.split(':', 1)[1].split()) for l in info.splitlines() if l.startswith('flags')), set())
    vec = 'AVX-512' if 'avx512f' in flags else 'AVX2' if 'avx2' in flags else None
    return f"{name}{', ' + vec if vec else ''}"

def where() -> str:
    "The CPU and its core count, as the reports open"
    return f"{cpu()} ({os.cpu_count()} cores)"
