// The panel lives once, in the Python package, where the widget loads it too.
export { decodePayload, default, renderCapture, sources } from '../../kernelviz/static/panel.js';
