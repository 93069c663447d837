"""One module per rule; `codemods.registry.ALL_RULES` lists them."""
