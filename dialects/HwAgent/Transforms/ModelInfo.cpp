//===- ModelInfo.cpp - the model table as constant LLVM globals -----------===//
//
// Each array of the table becomes a constant global whose LLVM type has the
// layout of the runtime's C struct (hwagent_abi.h); the static_asserts below
// and those in the header pin the field order this file writes.
//
//===----------------------------------------------------------------------===//

#include "LowerToRuntime.h"

#include "HwAgent/Transforms/Passes.h"
#include "hwagent_rt/hwagent_abi.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

#include <cstddef>

using namespace mlir;
using namespace mlir::hwagent;

static_assert(offsetof(hwagent_region_info_t, key) == 0 &&
                  offsetof(hwagent_region_info_t, flops) == 8 &&
                  offsetof(hwagent_region_info_t, bytes) == 16 &&
                  offsetof(hwagent_region_info_t, id) == 24 &&
                  offsetof(hwagent_region_info_t, program) == 28 &&
                  offsetof(hwagent_region_info_t, predicted) == 32 &&
                  offsetof(hwagent_region_info_t, legal_mask) == 56,
              "region layout emitted below");
static_assert(offsetof(hwagent_program_info_t, predicted) == 16 &&
                  offsetof(hwagent_program_info_t, weight_update) == 56 &&
                  offsetof(hwagent_program_info_t, fixed_joules) == 72 &&
                  offsetof(hwagent_program_info_t, clocked) == 96,
              "program layout emitted below");
static_assert(offsetof(hwagent_edge_info_t, bytes) == 8 &&
                  offsetof(hwagent_edge_info_t, convert_bytes) == 16,
              "edge layout emitted below");
static_assert(offsetof(hwagent_model_info_t, target) == 24 &&
                  offsetof(hwagent_model_info_t, compile) == 272 &&
                  offsetof(hwagent_model_info_t, functions) == 296 &&
                  offsetof(hwagent_model_info_t, compile_per_byte) == 304 &&
                  offsetof(hwagent_model_info_t, max_compiles) == 328 &&
                  offsetof(hwagent_model_info_t, power) == 352 &&
                  offsetof(hwagent_model_info_t, objective) == 424 &&
                  offsetof(hwagent_model_info_t, power_cap) == 432 &&
                  offsetof(hwagent_model_info_t, feature_names) == 440 &&
                  offsetof(hwagent_model_info_t, region_features) == 448 &&
                  offsetof(hwagent_model_info_t, num_features) == 456 &&
                  offsetof(hwagent_model_info_t, clock) == 464,
              "model layout emitted below");
static_assert(offsetof(hwagent_value_info_t, shape) == 8 &&
                  offsetof(hwagent_value_info_t, rank) == 16 &&
                  offsetof(hwagent_value_info_t, updates) == 28,
              "value layout emitted below");
static_assert(offsetof(hwagent_function_info_t, invoke) == 8 &&
                  offsetof(hwagent_function_info_t, num_args) == 32,
              "function layout emitted below");

namespace {
/// Builds the LLVM types and constant attributes of the C structs.
struct Emitter {
  explicit Emitter(MLIRContext *ctx) : ctx(ctx), b(ctx) {
    i32 = b.getI32Type();
    i64 = b.getI64Type();
    f64 = b.getF64Type();
    ptr = LLVM::LLVMPointerType::get(ctx);
    doubles = LLVM::LLVMArrayType::get(f64, HWAGENT_NUM_BACKENDS);
    ints = LLVM::LLVMArrayType::get(i32, HWAGENT_NUM_BACKENDS);
    longs = LLVM::LLVMArrayType::get(i64, HWAGENT_NUM_BACKENDS);
    link = LLVM::LLVMStructType::getLiteral(ctx, {f64, f64, f64});
    region = LLVM::LLVMStructType::getLiteral(
        ctx, {i64, i64, i64, i32, i32, doubles, i32, i32});
    program = LLVM::LLVMStructType::getLiteral(
        ctx,
        {i32, i32, i32, i32, doubles, i64, i64, ints, i32, doubles, doubles});
    edge = LLVM::LLVMStructType::getLiteral(ctx, {i32, i32, i64, i64});
    linkRow = LLVM::LLVMArrayType::get(link, HWAGENT_NUM_BACKENDS);
    linkTable = LLVM::LLVMArrayType::get(linkRow, HWAGENT_NUM_BACKENDS);
    power = LLVM::LLVMStructType::getLiteral(ctx,
                                             {doubles, doubles, f64, f64, f64});
    clock = LLVM::LLVMStructType::getLiteral(
        ctx, {doubles, doubles, doubles, doubles});
    model = LLVM::LLVMStructType::getLiteral(
        ctx, {i32, i32, i32,       i32,     i32, i32,     ptr,   ptr,
              ptr, ptr, linkTable, doubles, ptr, doubles, longs, power,
              i32, i32, f64,       ptr,     ptr, i32,     i32,   clock});
    value =
        LLVM::LLVMStructType::getLiteral(ctx, {ptr, ptr, i32, i32, i32, i32});
    function =
        LLVM::LLVMStructType::getLiteral(ctx, {ptr, ptr, ptr, ptr, i32, i32});
  }

  Attribute i32Attr(int64_t v) { return b.getIntegerAttr(i32, v); }
  Attribute i64Attr(int64_t v) { return b.getIntegerAttr(i64, v); }
  Attribute f64Attr(double v) { return b.getFloatAttr(f64, v); }
  template <typename T, typename Fn> Attribute array(const T *values, Fn fn) {
    SmallVector<Attribute> items;
    for (int i = 0; i < HWAGENT_NUM_BACKENDS; ++i)
      items.push_back(fn(values[i]));
    return b.getArrayAttr(items);
  }

  Attribute regionAttr(const hwagent_region_info_t &r) {
    return b.getArrayAttr(
        {i64Attr(int64_t(r.key)), i64Attr(r.flops), i64Attr(r.bytes),
         i32Attr(r.id), i32Attr(r.program),
         array(r.predicted, [&](double v) { return f64Attr(v); }),
         i32Attr(r.legal_mask), i32Attr(0)});
  }
  Attribute programAttr(const hwagent_program_info_t &p) {
    return b.getArrayAttr(
        {i32Attr(p.assigned), i32Attr(p.legal_mask), i32Attr(p.first_region),
         i32Attr(p.num_regions),
         array(p.predicted, [&](double v) { return f64Attr(v); }),
         i64Attr(p.flops), i64Attr(p.weight_bytes),
         array(p.weight_update, [&](int32_t v) { return i32Attr(v); }),
         i32Attr(0),
         array(p.fixed_joules, [&](double v) { return f64Attr(v); }),
         array(p.clocked, [&](double v) { return f64Attr(v); })});
  }
  Attribute edgeAttr(const hwagent_edge_info_t &e) {
    return b.getArrayAttr({i32Attr(e.from), i32Attr(e.to), i64Attr(e.bytes),
                           i64Attr(e.convert_bytes)});
  }

  MLIRContext *ctx;
  Builder b;
  Type i32, i64, f64, ptr, doubles, ints, longs, link, region, program, edge,
      linkRow, linkTable, power, clock, model, value, function;
};
} // namespace

/// A constant global array of `type` with one element per attribute; null
/// when empty (the table then holds a null pointer).
static LLVM::GlobalOp emitArray(OpBuilder &builder, Location loc,
                                StringRef name, Type type,
                                ArrayRef<Attribute> elements) {
  if (elements.empty())
    return {};
  auto arrayType = LLVM::LLVMArrayType::get(type, elements.size());
  return LLVM::GlobalOp::create(builder, loc, arrayType, /*isConstant=*/true,
                                LLVM::Linkage::Internal, name,
                                builder.getArrayAttr(elements));
}

/// A constant NUL-terminated string global.
static void emitString(OpBuilder &builder, Location loc, StringRef symbol,
                       StringRef text) {
  std::string bytes = text.str();
  bytes.push_back('\0');
  auto type = LLVM::LLVMArrayType::get(builder.getI8Type(), bytes.size());
  LLVM::GlobalOp::create(builder, loc, type, /*isConstant=*/true,
                         LLVM::Linkage::Internal, symbol,
                         builder.getStringAttr(bytes));
}

/// A constant global of `type` whose initializer `build` computes from an
/// undef value (for structs holding addresses, which attributes cannot).
static void emitComputed(OpBuilder &builder, Location loc, StringRef symbol,
                         Type type,
                         function_ref<Value(OpBuilder &, Value)> build) {
  auto global =
      LLVM::GlobalOp::create(builder, loc, type, /*isConstant=*/true,
                             LLVM::Linkage::Internal, symbol, Attribute());
  Block *init = builder.createBlock(&global.getInitializerRegion());
  OpBuilder ib = OpBuilder::atBlockEnd(init);
  Value v = build(ib, LLVM::UndefOp::create(ib, loc, type));
  LLVM::ReturnOp::create(ib, loc, v);
  builder.setInsertionPointAfter(global);
}

/// The function table: names, dtypes, shapes and roles of every public
/// function's arguments and results, and its packed entry point (declared
/// here, defined by hwagent-emit-invokers once the C interface exists).
/// Returns the symbol of the table, empty when there is none.
static std::string emitFunctions(OpBuilder &builder, Location loc, Emitter &e,
                                 ArrayRef<StepSignature> signatures,
                                 bool withInvokers) {
  if (signatures.empty())
    return {};
  auto address = [&](OpBuilder &b, StringRef symbol) -> Value {
    if (symbol.empty())
      return LLVM::ZeroOp::create(b, loc, e.ptr);
    return LLVM::AddressOfOp::create(b, loc, e.ptr, symbol);
  };
  auto constant = [&](OpBuilder &b, Type type, int64_t v) -> Value {
    return LLVM::ConstantOp::create(b, loc, type, b.getIntegerAttr(type, v));
  };
  // One array of values per function side; returns its symbol.
  auto emitValues = [&](StringRef prefix,
                        ArrayRef<ValueSignature> values) -> std::string {
    if (values.empty())
      return {};
    SmallVector<std::string> names, shapes;
    SmallVector<int64_t> ranks;
    for (auto [i, v] : llvm::enumerate(values)) {
      std::string name = (prefix + "_name" + Twine(i)).str();
      emitString(builder, loc, name, v.name);
      names.push_back(name);
      auto shaped = dyn_cast<ShapedType>(v.type);
      int64_t rank = shaped && shaped.hasRank() ? shaped.getRank() : -1;
      ranks.push_back(rank);
      std::string shape;
      if (rank > 0) {
        shape = (prefix + "_shape" + Twine(i)).str();
        SmallVector<Attribute> dims;
        for (int64_t d : shaped.getShape())
          dims.push_back(e.i64Attr(ShapedType::isDynamic(d) ? -1 : d));
        emitArray(builder, loc, shape, e.i64, dims);
      }
      shapes.push_back(shape);
    }
    std::string symbol = prefix.str();
    auto arrayType = LLVM::LLVMArrayType::get(e.value, values.size());
    emitComputed(builder, loc, symbol, arrayType, [&](OpBuilder &b, Value a) {
      for (auto [i, v] : llvm::enumerate(values)) {
        int64_t at = int64_t(i);
        Type element = getElementTypeOrSelf(v.type);
        Value fields[] = {
            address(b, names[i]),         address(b, shapes[i]),
            constant(b, e.i32, ranks[i]), constant(b, e.i32, dtypeOf(element)),
            constant(b, e.i32, v.role),   constant(b, e.i32, v.updates)};
        for (auto [f, field] : llvm::enumerate(fields))
          a = LLVM::InsertValueOp::create(b, loc, a, field,
                                          ArrayRef<int64_t>{at, int64_t(f)});
      }
      return a;
    });
    return symbol;
  };

  struct Emitted {
    std::string name, invoke, args, results;
  };
  SmallVector<Emitted> emitted;
  for (auto [f, sig] : llvm::enumerate(signatures)) {
    std::string prefix = "__hwagent_fn" + std::to_string(f);
    Emitted out;
    out.name = prefix + "_name";
    emitString(builder, loc, out.name, sig.function);
    out.args = emitValues(prefix + "_args", sig.args);
    out.results = emitValues(prefix + "_results", sig.results);
    if (withInvokers) {
      out.invoke = "__hwagent_invoke_" + sig.function;
      auto type = LLVM::LLVMFunctionType::get(
          LLVM::LLVMVoidType::get(builder.getContext()), {e.ptr});
      auto decl = LLVM::LLVMFuncOp::create(builder, loc, out.invoke, type);
      decl->setAttr(kInvokeOfAttr, builder.getStringAttr(sig.function));
      decl->setAttr(kInvokeArgsAttr, e.i64Attr(sig.args.size()));
    }
    emitted.push_back(out);
  }
  auto tableType = LLVM::LLVMArrayType::get(e.function, emitted.size());
  emitComputed(
      builder, loc, "__hwagent_functions", tableType,
      [&](OpBuilder &b, Value a) {
        for (auto [i, out] : llvm::enumerate(emitted)) {
          int64_t at = int64_t(i);
          Value fields[] = {address(b, out.name),
                            address(b, out.invoke),
                            address(b, out.args),
                            address(b, out.results),
                            constant(b, e.i32, signatures[i].args.size()),
                            constant(b, e.i32, signatures[i].results.size())};
          for (auto [k, field] : llvm::enumerate(fields))
            a = LLVM::InsertValueOp::create(b, loc, a, field,
                                            ArrayRef<int64_t>{at, int64_t(k)});
        }
        return a;
      });
  return "__hwagent_functions";
}

/// The learned-cost feature names (an array of string addresses) and the
/// regions' values (row-major); returns whether there are any.
static bool emitFeatures(OpBuilder &builder, Location loc, Emitter &e,
                         const ModelTable &table) {
  if (table.featureNames.empty())
    return false;
  SmallVector<std::string> names;
  for (auto [i, name] : llvm::enumerate(table.featureNames)) {
    names.push_back("__hwagent_feature_name" + std::to_string(i));
    emitString(builder, loc, names.back(), name);
  }
  auto type = LLVM::LLVMArrayType::get(e.ptr, names.size());
  emitComputed(builder, loc, "__hwagent_feature_names", type,
               [&](OpBuilder &b, Value a) {
                 for (auto [i, name] : llvm::enumerate(names))
                   a = LLVM::InsertValueOp::create(
                       b, loc, a,
                       LLVM::AddressOfOp::create(b, loc, e.ptr, name),
                       ArrayRef<int64_t>{int64_t(i)});
                 return a;
               });
  SmallVector<Attribute> values;
  for (double v : table.regionFeatures)
    values.push_back(e.f64Attr(v));
  emitArray(builder, loc, "__hwagent_region_features", e.f64, values);
  return true;
}

namespace {
/// The initializer of the model global, field by field in the order of
/// hwagent_model_info_t (static_asserts above pin it).
struct ModelFields {
  ModelFields(OpBuilder &ib, Location loc, Emitter &e)
      : ib(ib), loc(loc), e(e), model(LLVM::UndefOp::create(ib, loc, e.model)) {
  }

  Value constant(Type type, Attribute value) {
    return LLVM::ConstantOp::create(ib, loc, type, value).getResult();
  }
  /// The next field.
  void insert(Value value) {
    model = LLVM::InsertValueOp::create(ib, loc, model, value, field++);
  }
  /// An element of an array field (llvm.mlir.constant takes no nested
  /// arrays).
  void insertAt(ArrayRef<int64_t> position, Value value) {
    model = LLVM::InsertValueOp::create(ib, loc, model, value, position);
  }
  void insertF64At(ArrayRef<int64_t> position, double value) {
    insertAt(position, constant(e.f64, e.f64Attr(value)));
  }
  /// The address of `symbol` (null without one).
  Value address(StringRef symbol) {
    if (symbol.empty())
      return LLVM::ZeroOp::create(ib, loc, e.ptr);
    return LLVM::AddressOfOp::create(ib, loc, e.ptr, symbol);
  }

  /// Links, compile prices and limits, the power model, objective and cap.
  void prices(const ModelTable &table, StringRef functionsSymbol);
  /// The clock model, per backend.
  void clocks(const hwagent_clock_info_t &clock) {
    int64_t clockField = field++;
    for (int64_t b = 0; b < HWAGENT_NUM_BACKENDS; ++b) {
      insertF64At({clockField, 0, b}, clock.dvfs_exponent[b]);
      insertF64At({clockField, 1, b}, clock.min_clock[b]);
      insertF64At({clockField, 2, b}, clock.active[b]);
      insertF64At({clockField, 3, b}, clock.per_flop[b]);
    }
  }

  OpBuilder &ib;
  Location loc;
  Emitter &e;
  Value model;
  int64_t field = 0;
};
} // namespace

void ModelFields::prices(const ModelTable &table, StringRef functionsSymbol) {
  int64_t linksField = field++;
  for (int a = 0; a < HWAGENT_NUM_BACKENDS; ++a)
    for (int b = 0; b < HWAGENT_NUM_BACKENDS; ++b) {
      const hwagent_link_info_t &l = table.links[a][b];
      double values[] = {l.bandwidth, l.convert_bandwidth, l.sync};
      for (int64_t f = 0; f < 3; ++f)
        insertF64At({linksField, a, b, f}, values[f]);
    }
  int64_t compileField = field++;
  for (int64_t b = 0; b < HWAGENT_NUM_BACKENDS; ++b)
    insertF64At({compileField, b}, table.compile[b]);
  insert(address(functionsSymbol));
  int64_t perByteField = field++, maxCompilesField = field++;
  for (int64_t b = 0; b < HWAGENT_NUM_BACKENDS; ++b) {
    insertF64At({perByteField, b}, table.compilePerByte[b]);
    insertAt({maxCompilesField, b},
             constant(e.i64, e.i64Attr(table.maxCompiles[b])));
  }
  // The power model, field by field.
  int64_t powerField = field++;
  const hwagent_power_info_t &power = table.power;
  for (int64_t b = 0; b < HWAGENT_NUM_BACKENDS; ++b) {
    insertF64At({powerField, 0, b}, power.idle[b]);
    insertF64At({powerField, 1, b}, power.running[b]);
  }
  insertF64At({powerField, 2}, power.boundary);
  insertF64At({powerField, 3}, power.boundary_per_byte);
  insertF64At({powerField, 4}, power.static_power);
  insert(constant(e.i32, e.i32Attr(table.objective)));
  insert(constant(e.i32, e.i32Attr(0)));
  insert(constant(e.f64, e.f64Attr(table.powerCap)));
}

void hwagent::emitModelInfo(ModuleOp module, const ModelTable &table,
                            ArrayRef<StepSignature> signatures,
                            bool withInvokers) {
  MLIRContext *ctx = module.getContext();
  Emitter e(ctx);
  Location loc = module.getLoc();
  OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());

  SmallVector<Attribute> regions, programs, edges;
  for (const hwagent_region_info_t &r : table.regions)
    regions.push_back(e.regionAttr(r));
  for (const hwagent_program_info_t &p : table.programs)
    programs.push_back(e.programAttr(p));
  for (const hwagent_edge_info_t &edge : table.edges)
    edges.push_back(e.edgeAttr(edge));
  LLVM::GlobalOp regionsGlobal =
      emitArray(builder, loc, "__hwagent_regions", e.region, regions);
  LLVM::GlobalOp programsGlobal =
      emitArray(builder, loc, "__hwagent_programs", e.program, programs);
  LLVM::GlobalOp edgesGlobal =
      emitArray(builder, loc, "__hwagent_edges", e.edge, edges);
  std::string name = table.target;
  name.push_back('\0');
  auto nameType = LLVM::LLVMArrayType::get(e.b.getI8Type(), name.size());
  LLVM::GlobalOp::create(builder, loc, nameType, /*isConstant=*/true,
                         LLVM::Linkage::Internal, "__hwagent_target_name",
                         builder.getStringAttr(name));
  std::string functionsSymbol =
      emitFunctions(builder, loc, e, signatures, withInvokers);
  bool features = emitFeatures(builder, loc, e, table);
  bool featureValues = features && !table.regionFeatures.empty();

  // The model: scalars, pointers to the arrays, links and compile times.
  auto modelGlobal = LLVM::GlobalOp::create(
      builder, loc, e.model, /*isConstant=*/true, LLVM::Linkage::Internal,
      "__hwagent_model", Attribute());
  Block *init = builder.createBlock(&modelGlobal.getInitializerRegion());
  OpBuilder ib = OpBuilder::atBlockEnd(init);
  ModelFields fields(ib, loc, e);
  for (int64_t v :
       {int64_t(HWAGENT_MODEL_INFO_VERSION), int64_t(HWAGENT_NUM_BACKENDS),
        int64_t(table.regions.size()), int64_t(table.programs.size()),
        int64_t(table.edges.size()), int64_t(signatures.size())})
    fields.insert(fields.constant(e.i32, e.i32Attr(v)));
  fields.insert(fields.address("__hwagent_target_name"));
  fields.insert(fields.address(regionsGlobal ? "__hwagent_regions" : ""));
  fields.insert(fields.address(programsGlobal ? "__hwagent_programs" : ""));
  fields.insert(fields.address(edgesGlobal ? "__hwagent_edges" : ""));
  fields.prices(table, functionsSymbol);
  fields.insert(fields.address(features ? "__hwagent_feature_names" : ""));
  fields.insert(
      fields.address(featureValues ? "__hwagent_region_features" : ""));
  fields.insert(fields.constant(
      e.i32, e.i32Attr(features ? table.featureNames.size() : 0)));
  fields.insert(fields.constant(e.i32, e.i32Attr(0)));
  fields.clocks(table.clock);
  LLVM::ReturnOp::create(ib, loc, fields.model);

  // The accessor generated code and drivers call.
  builder.setInsertionPointToEnd(module.getBody());
  auto fn = func::FuncOp::create(builder, loc, HWAGENT_MODEL_INFO_SYMBOL,
                                 builder.getFunctionType({}, {e.ptr}));
  OpBuilder body = OpBuilder::atBlockEnd(fn.addEntryBlock());
  Value pointer =
      LLVM::AddressOfOp::create(body, loc, e.ptr, "__hwagent_model");
  func::ReturnOp::create(body, loc, pointer);
}
