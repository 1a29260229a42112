"""Prints a module whose functions call each other N deep (argv[1])."""
import sys

n = int(sys.argv[1])
for i in range(n - 1):
    print(f"func.func @f{i}(%a: tensor<4xf32>) -> tensor<4xf32> {{\n"
          f"  %r = func.call @f{i + 1}(%a) : (tensor<4xf32>) -> tensor<4xf32>\n"
          f"  return %r : tensor<4xf32>\n}}")
print(f"func.func @f{n - 1}(%a: tensor<4xf32>) -> tensor<4xf32> {{\n"
      f"  %r = math.exp %a : tensor<4xf32>\n  return %r : tensor<4xf32>\n}}")
