"""The ``node-module`` adapter: Averos ``ExecutionAdapter`` modules in JavaScript/TypeScript."""

from averos_ci.execute.adapters.node_module.adapter import NodeModuleAdapter

__all__ = ["NodeModuleAdapter"]
