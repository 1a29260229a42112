//===- hwagent-opt.cpp - hwagent optimizer driver -------------------------===//
//
// mlir-opt with the dialects real training graphs use, the hwagent dialect and
// every hwagent pass and pipeline.
//
//===----------------------------------------------------------------------===//

#include "Driver/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::hwagent::registerAllDialects(registry);
  mlir::hwagent::registerAllPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "hwagent optimizer driver\n", registry));
}
