"""What reaches a model: sanitising and the injected index windows."""
