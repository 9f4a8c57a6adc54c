"""The batched runner: one long-lived Node process (``driver.js``) runs every schematic of a
run, and the per-node undo journal that makes a node's writes all-or-nothing."""
