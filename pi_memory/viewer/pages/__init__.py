"""One module per page of the viewer; each draws with ``render(request)`` and acts with
the functions :data:`pi_memory.viewer.routing.ACTIONS` names."""
