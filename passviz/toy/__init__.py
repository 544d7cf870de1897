"""The MLIR Toy tutorial's language: lexer, parser, AST and its printer, MLIRGen."""
