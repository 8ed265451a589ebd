"""Pure Plotly figure builders: arrays and dicts in, ``go.Figure`` out; never ``st.*``."""
