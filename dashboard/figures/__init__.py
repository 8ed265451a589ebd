"""Pure Plotly figure builders: analysis objects, arrays and dicts in, ``go.Figure`` out; never
``st.*``. ``panels`` builds every Evaluate figure from an analysis object, for the page, the
report and the exports alike."""
