"""Data that makes clustlens useful on first launch: generators and shipped demo files."""

from pathlib import Path

DEMO_DIR = Path(__file__).resolve().parent
