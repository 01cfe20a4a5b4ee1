"""How each catalog type maps onto the simulated cloud's collections, one module per service."""
