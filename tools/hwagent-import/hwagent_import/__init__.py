"""hwagent-import: PyTorch models in, hwagent training steps out.

    import hwagent_import
    hwagent_import.import_model(model, (x, y), "out", loss="cross_entropy",
                                optimizer=torch.optim.SGD(model.parameters(), lr=0.1))
    # ... hwagent-run out/train_step.mlir --data d.npz --init out/init.safetensors --save t.safetensors
    hwagent_import.load_checkpoint(model, "t.safetensors")   # back into the nn.Module

docs/importer.md describes the contract, the op coverage and the numerics.
"""

from .api import ImportResult, default_correct, import_model
from .errors import ImportError_
from .tensors import load_checkpoint, read_safetensors, write_safetensors

__all__ = ["ImportError_", "ImportResult", "default_correct", "import_model", "load_checkpoint",
           "read_safetensors", "write_safetensors"]
