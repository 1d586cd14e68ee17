// The panel lives once, in the Python package, where the widget loads it too.
export { renderCapture } from '../../kernelviz/static/panel.js';
