"""The built-in edits that make a manifest's settings take effect in the application the
@wiforge/averos 1.4.1 schematics generated, where they have no option for them: one module
per concern (authentication, member types, entity tags and delete strategies, the entity's
keys on the wire, the application's own settings, production budgets)."""
