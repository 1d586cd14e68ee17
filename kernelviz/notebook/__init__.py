"""The notebook side: the ``%%kernelviz`` magic, the live widgets and what a notebook output holds (IPython,
ipywidgets and anywidget are imported here, the renderers in :mod:`kernelviz.views` are not)."""
