'use strict';
// plotly.js with the trace types clustlens's figures use (dashboard/figures/_style.py,
// TRACE_TYPES and BUNDLE_TRACES); `scatter` is always part of plotly.js's core.
var Plotly = require('plotly.js/lib/core');

Plotly.register([
    require('plotly.js/lib/bar'),
    require('plotly.js/lib/heatmap'),
    require('plotly.js/lib/image'),
    require('plotly.js/lib/sankey'),
    require('plotly.js/lib/scattergl'),
]);

module.exports = Plotly;
