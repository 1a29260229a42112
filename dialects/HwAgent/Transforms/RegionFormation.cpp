//===- RegionFormation.cpp - cluster ops into hwagent.region --------------===//
//
// Clustering works on the DAG whose nodes are the ops of one block (constants
// and tensor.empty excluded: they are cloned into each region that uses them)
// and whose edges are def-use edges plus ordering edges between ops with
// memory effects. Clusters are contracted nodes of that DAG; the quotient
// graph must stay acyclic, which is the same as every cluster being convex.
//
// A topological order of the clusters is kept up to date across merges (a
// Pearce-Kelly style local reordering): a path from cluster A to cluster B
// can only pass clusters ordered between them, so the check before a merge
// and the reordering after it only touch that window.
//
//===----------------------------------------------------------------------===//

#include "HwAgent/Transforms/RegionFormation.h"

#include "HwAgent/Analysis/Utils.h"
#include "HwAgent/Analysis/WorkloadProfile.h"
#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace mlir::hwagent;

std::optional<Granularity> hwagent::parseGranularity(StringRef name) {
  return llvm::StringSwitch<std::optional<Granularity>>(name)
      .Case("per-op", Granularity::PerOp)
      .Case("fused", Granularity::Fused)
      .Case("per-layer", Granularity::PerLayer)
      .Default(std::nullopt);
}

/// Results of more elements are left alone: folding them would write a
/// large constant into the binary for what the step computes in no time.
static constexpr int64_t kMaxFoldedElements = 64;

namespace {

/// How an op takes part in clustering.
enum class Role {
  /// Never shares a region: loops, calls, opaque or effectful ops.
  Standalone,
  /// conv, depthwise, matmul: starts a layer.
  Contraction,
  /// pooling, reduction, normalization with a reduction: its own region in
  /// `fused` mode.
  Anchor,
  /// elementwise and data movement: joins its neighbours.
  Fusible,
};

class BlockClustering {
public:
  BlockClustering(Block &block, WorkloadProfiler &profiler,
                  const RegionFormationOptions &options)
      : block(block), profiler(profiler), options(options) {}

  void buildGraph();
  void cluster();
  LogicalResult materialize(int64_t &nextId, RegionFormationStats &stats);

private:
  Role classify(Operation *op, const OpWork &work, bool effectFree);
  unsigned find(unsigned node);
  /// Merges the clusters of `a` and `b` when that keeps every cluster convex
  /// and respects the options; returns whether it did.
  bool tryMerge(unsigned a, unsigned b);
  void fuseDataMovementProducers();
  void fuseConsumers();
  void fuseIntoLayers();

  Block &block;
  WorkloadProfiler &profiler;
  const RegionFormationOptions &options;

  // Graph over nodes (indices follow block order).
  SmallVector<Operation *> nodes;
  llvm::DenseMap<Operation *, unsigned> nodeOf;
  SmallVector<Role> roles;
  SmallVector<bool> movesDataOnly;
  SmallVector<SmallVector<unsigned, 4>> succs, dataPreds, dataSuccs;

  // Union-find over nodes; per-root data is valid for roots only.
  SmallVector<unsigned> parent;
  SmallVector<SmallVector<unsigned, 1>> members;
  SmallVector<unsigned> maxIndex;
  SmallVector<bool> hasAnchor, hasContraction, standalone;

  // Topological order of clusters: position of each root, and the root at
  // each position (-1 once a merge frees it).
  SmallVector<unsigned> position;
  SmallVector<int> rootAt;

  // Visit stamps per root for the path search (no clearing between queries).
  SmallVector<unsigned> visitedStamp;
  unsigned stamp = 0;
};
} // namespace

Role BlockClustering::classify(Operation *op, const OpWork &work,
                               bool effectFree) {
  if (!op->isRegistered() || isa<CallOpInterface, RegionOp>(op) || !effectFree)
    return Role::Standalone;
  if (work.opaque)
    return Role::Standalone;
  switch (work.kind) {
  case OpKind::conv:
  case OpKind::depthwise:
  case OpKind::matmul:
    return Role::Contraction;
  case OpKind::pooling:
  case OpKind::reduction:
    return Role::Anchor;
  case OpKind::normalization:
    // An elementwise normalization (inference batch norm) fuses like any
    // elementwise op; one that reduces is an anchor.
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
      return linalgOp.getNumReductionLoops() == 0 ? Role::Fusible
                                                  : Role::Anchor;
    return Role::Anchor;
  case OpKind::elementwise:
  case OpKind::data_movement:
    return Role::Fusible;
  case OpKind::control_flow:
  case OpKind::opaque:
    return Role::Standalone;
  }
  return Role::Standalone;
}

/// Host-side bookkeeping: scalar flag and index arithmetic and checks such as
/// torch-mlir's `cf.assert %true, "training is not supported"` (no tensors,
/// no bodies, not a call). It stays between regions instead of becoming a
/// region that a backend would have to dispatch.
static bool isHostOp(Operation &op) {
  auto isShaped = [](Type type) { return isa<ShapedType>(type); };
  return op.isRegistered() && op.getNumRegions() == 0 &&
         !isa<CallOpInterface>(op) &&
         llvm::none_of(op.getOperandTypes(), isShaped) &&
         llvm::none_of(op.getResultTypes(), isShaped);
}

void BlockClustering::buildGraph() {
  // Ops left out of the graph that read (maybe through each other) a value
  // a node computes.
  llvm::SmallPtrSet<Operation *, 16> downstreamOfNodes;
  auto readsNodes = [&](Operation &op) {
    return llvm::any_of(op.getOperands(), [&](Value value) {
      Operation *def = value.getDefiningOp();
      return def && def->getBlock() == &block &&
             (nodeOf.count(def) || downstreamOfNodes.contains(def));
    });
  };
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>())
      continue;
    bool leaf = isCloneableLeaf(&op) || op.hasTrait<OpTrait::ConstantLike>();
    if (leaf || isHostOp(op)) {
      // A host-side op that reads a region's value (a size computed from a
      // result) takes part in clustering: left between regions, a cluster
      // could both feed it and read it, a cycle no order resolves. Leaves
      // are cloned into their users, which then read their operands.
      if (!readsNodes(op)) // the common case: flags, constants, checks
        continue;
      if (leaf) {
        downstreamOfNodes.insert(&op);
        continue;
      }
    }
    nodeOf[&op] = nodes.size();
    nodes.push_back(&op);
  }
  unsigned n = nodes.size();
  succs.resize(n);
  dataPreds.resize(n);
  dataSuccs.resize(n);
  roles.reserve(n);
  SmallVector<bool> effectFree;
  effectFree.reserve(n);
  for (Operation *op : nodes) {
    OpWork work = profiler.getOpWork(op);
    effectFree.push_back(isMemoryEffectFree(op));
    roles.push_back(classify(op, work, effectFree.back()));
    movesDataOnly.push_back(!work.opaque && work.flops == 0 &&
                            (work.kind == OpKind::data_movement ||
                             work.kind == OpKind::elementwise));
  }

  // Producers of a value: the node defining it, or the producers of a cloned
  // leaf's operands (tensor.empty of a dynamic size).
  std::function<void(Value, SmallVectorImpl<unsigned> &)> producersOf =
      [&](Value value, SmallVectorImpl<unsigned> &out) {
        Operation *def = value.getDefiningOp();
        if (!def || def->getBlock() != &block)
          return;
        if (auto it = nodeOf.find(def); it != nodeOf.end()) {
          out.push_back(it->second);
          return;
        }
        for (Value operand : def->getOperands())
          producersOf(operand, out);
      };

  std::optional<unsigned> lastEffectful;
  for (unsigned u = 0; u < n; ++u) {
    SmallVector<unsigned, 8> preds;
    forEachInput(nodes[u], [&](Value v) { producersOf(v, preds); });
    llvm::sort(preds);
    preds.erase(std::unique(preds.begin(), preds.end()), preds.end());
    for (unsigned p : preds) {
      if (p == u)
        continue;
      dataPreds[u].push_back(p);
      dataSuccs[p].push_back(u);
      succs[p].push_back(u);
    }
    if (!effectFree[u]) {
      if (lastEffectful && !llvm::is_contained(preds, *lastEffectful))
        succs[*lastEffectful].push_back(u);
      lastEffectful = u;
    }
  }

  parent.resize(n);
  members.resize(n);
  maxIndex.resize(n);
  hasAnchor.resize(n);
  hasContraction.resize(n);
  standalone.resize(n);
  visitedStamp.assign(n, 0);
  position.resize(n);
  rootAt.resize(n);
  for (unsigned u = 0; u < n; ++u) {
    position[u] = u;
    rootAt[u] = u;
    parent[u] = u;
    members[u] = {u};
    maxIndex[u] = u;
    hasContraction[u] = roles[u] == Role::Contraction;
    hasAnchor[u] = hasContraction[u] || roles[u] == Role::Anchor;
    standalone[u] = roles[u] == Role::Standalone;
  }
}

unsigned BlockClustering::find(unsigned node) {
  while (parent[node] != node) {
    parent[node] = parent[parent[node]];
    node = parent[node];
  }
  return node;
}

bool BlockClustering::tryMerge(unsigned a, unsigned b) {
  unsigned ra = find(a), rb = find(b);
  if (ra == rb || standalone[ra] || standalone[rb])
    return false;
  if (options.maxOpsPerRegion &&
      members[ra].size() + members[rb].size() > options.maxOpsPerRegion)
    return false;
  if (position[ra] > position[rb])
    std::swap(ra, rb);
  unsigned lo = position[ra], hi = position[rb];

  // Clusters reachable from `ra` that come before `rb`. Reaching `rb` from
  // one of them means a path through another cluster: merging would make
  // the merged cluster non-convex.
  ++stamp;
  SmallVector<unsigned, 16> forward, stack;
  auto visitSuccessors = [&](unsigned root) {
    for (unsigned m : members[root])
      for (unsigned s : succs[m]) {
        unsigned r = find(s);
        if (r == ra || r == rb || position[r] > hi || visitedStamp[r] == stamp)
          continue;
        visitedStamp[r] = stamp;
        forward.push_back(r);
        stack.push_back(r);
      }
  };
  visitSuccessors(ra);
  while (!stack.empty()) {
    unsigned root = stack.pop_back_val();
    for (unsigned m : members[root])
      for (unsigned s : succs[m])
        if (find(s) == rb)
          return false;
    visitSuccessors(root);
  }

  // Merge, then restore the order inside the window [lo, hi]: clusters not
  // reachable from `ra` first, then the merged cluster, then the reachable
  // ones (none of which reaches `rb`, as checked above).
  SmallVector<unsigned, 16> before, after;
  for (unsigned p = lo + 1; p < hi; ++p) {
    if (rootAt[p] < 0)
      continue;
    unsigned root = rootAt[p];
    (visitedStamp[root] == stamp ? after : before).push_back(root);
  }
  unsigned keep = ra, gone = rb;
  if (members[keep].size() < members[gone].size())
    std::swap(keep, gone);
  parent[gone] = keep;
  members[keep].append(members[gone].begin(), members[gone].end());
  members[gone].clear();
  maxIndex[keep] = std::max(maxIndex[keep], maxIndex[gone]);
  hasAnchor[keep] = hasAnchor[keep] || hasAnchor[gone];
  hasContraction[keep] = hasContraction[keep] || hasContraction[gone];

  unsigned p = lo;
  auto place = [&](unsigned root) {
    position[root] = p;
    rootAt[p++] = root;
  };
  for (unsigned root : before)
    place(root);
  place(keep);
  for (unsigned root : after)
    place(root);
  while (p <= hi)
    rootAt[p++] = -1;
  return true;
}

/// Pads, transposes, reshapes and casts used only by an anchor become part of
/// it (IREE fuses such index remaps into the consumer's dispatch).
void BlockClustering::fuseDataMovementProducers() {
  for (unsigned anchor = 0; anchor < nodes.size(); ++anchor) {
    if (roles[anchor] != Role::Contraction && roles[anchor] != Role::Anchor)
      continue;
    SmallVector<unsigned, 8> worklist(dataPreds[anchor].begin(),
                                      dataPreds[anchor].end());
    while (!worklist.empty()) {
      unsigned p = worklist.pop_back_val();
      unsigned rp = find(p);
      if (roles[p] != Role::Fusible || !movesDataOnly[p] || hasAnchor[rp] ||
          members[rp].size() != 1)
        continue;
      unsigned target = find(anchor);
      bool onlyFeedsAnchor = llvm::all_of(
          dataSuccs[p], [&](unsigned s) { return find(s) == target; });
      if (!onlyFeedsAnchor || !tryMerge(p, anchor))
        continue;
      worklist.append(dataPreds[p].begin(), dataPreds[p].end());
    }
  }
}

/// Elementwise and data-movement consumers join the cluster of a producer:
/// the latest producer with an anchor, else the latest fusible chain.
void BlockClustering::fuseConsumers() {
  for (unsigned c = 0; c < nodes.size(); ++c) {
    if (roles[c] != Role::Fusible || hasAnchor[find(c)])
      continue;
    SmallVector<unsigned, 4> candidates;
    for (unsigned p : dataPreds[c]) {
      unsigned rp = find(p);
      if (rp != find(c) && !standalone[rp] &&
          !llvm::is_contained(candidates, rp))
        candidates.push_back(rp);
    }
    llvm::stable_sort(candidates, [&](unsigned x, unsigned y) {
      if (hasAnchor[x] != hasAnchor[y])
        return bool(hasAnchor[x]);
      return maxIndex[x] > maxIndex[y];
    });
    for (unsigned candidate : candidates)
      if (tryMerge(c, candidate))
        break;
  }
}

/// Everything that is not a contraction joins the layer of its latest
/// producer that holds one.
void BlockClustering::fuseIntoLayers() {
  for (unsigned c = 0; c < nodes.size(); ++c) {
    unsigned rc = find(c);
    if (standalone[rc] || hasContraction[rc])
      continue;
    SmallVector<unsigned, 4> candidates;
    for (unsigned p : dataPreds[c]) {
      unsigned rp = find(p);
      if (rp != rc && hasContraction[rp] && !standalone[rp] &&
          !llvm::is_contained(candidates, rp))
        candidates.push_back(rp);
    }
    llvm::sort(candidates, [&](unsigned x, unsigned y) {
      return maxIndex[x] > maxIndex[y];
    });
    for (unsigned candidate : candidates)
      if (tryMerge(c, candidate))
        break;
  }
}

void BlockClustering::cluster() {
  if (options.granularity == Granularity::PerOp)
    return;
  fuseDataMovementProducers();
  fuseConsumers();
  if (options.granularity == Granularity::PerLayer)
    fuseIntoLayers();
}

/// Moves the ops of one cluster into a new hwagent.region placed at the first
/// of them; external values become operands (cloneable leaves are cloned),
/// values used outside become results.
static RegionOp buildRegion(ArrayRef<Operation *> ops) {
  llvm::DenseSet<Operation *> memberSet(ops.begin(), ops.end());
  Block *block = ops.front()->getBlock();

  SmallVector<Value> outputs;
  for (Operation *op : ops)
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(), [&](Operation *user) {
            Operation *ancestor = block->findAncestorOpInBlock(*user);
            return !ancestor || !memberSet.contains(ancestor);
          }))
        outputs.push_back(result);

  // Name the region after its heaviest op for diagnostics.
  Location loc = ops.front()->getLoc();
  OpBuilder builder(ops.front());
  auto region = RegionOp::create(builder, loc, /*id=*/0,
                                 ValueRange(outputs).getTypes(), ValueRange{});
  Block &body = region.getBodyBlock();
  for (Operation *op : ops)
    op->moveBefore(&body, body.end());
  builder.setInsertionPointToEnd(&body);
  YieldOp::create(builder, loc, outputs);
  for (auto [output, result] : llvm::zip(outputs, region.getResults()))
    output.replaceUsesWithIf(result, [&](OpOperand &use) {
      return !region->isAncestor(use.getOwner());
    });

  // Rewire every use of a value from outside the region.
  llvm::DenseMap<Value, Value> mapped;
  SmallVector<OpOperand *> externalUses;
  SmallVector<Value> inputs;
  bool clonesRead = false;
  auto collect = [&](Operation *root) {
    root->walk([&](Operation *op) {
      for (OpOperand &operand : op->getOpOperands()) {
        Region *defRegion = operand.get().getParentRegion();
        if (!defRegion || !region->isAncestor(defRegion->getParentOp()))
          externalUses.push_back(&operand);
      }
    });
  };
  for (Operation &op : body)
    collect(&op);
  for (size_t next = 0; next < externalUses.size(); ++next) {
    OpOperand *use = externalUses[next];
    Value value = use->get();
    if (auto it = mapped.find(value); it != mapped.end()) {
      use->set(it->second);
      continue;
    }
    Operation *def = value.getDefiningOp();
    if (def && isCloneableLeaf(def)) {
      builder.setInsertionPointToStart(&body);
      Operation *clone = builder.clone(*def);
      // Clones go to the top, newest first: one that reads anything (a fill
      // of a cloned tensor.empty, a dynamic size) may need reordering.
      clonesRead |= clone->getNumOperands() > 0;
      // A leaf sized by a value this region computes (tensor.empty(%d) with
      // %d = tensor.dim inside) reads it from inside, not from the region's
      // own result.
      for (OpOperand &operand : clone->getOpOperands())
        if (auto result = dyn_cast<OpResult>(operand.get());
            result && result.getOwner() == region.getOperation())
          operand.set(region.getYield().getValues()[result.getResultNumber()]);
      for (auto [original, copy] :
           llvm::zip(def->getResults(), clone->getResults()))
        mapped[original] = copy;
      collect(clone);
      use->set(mapped[value]);
      continue;
    }
    inputs.push_back(value);
    BlockArgument arg = body.addArgument(value.getType(), value.getLoc());
    mapped[value] = arg;
    use->set(arg);
  }
  region->setOperands(inputs);
  if (clonesRead)
    (void)sortTopologically(&body);
  return region;
}

LogicalResult BlockClustering::materialize(int64_t &nextId,
                                           RegionFormationStats &stats) {
  unsigned n = nodes.size();
  if (n == 0)
    return success();
  llvm::DenseSet<Operation *> leavesInUse;
  for (Operation &op : block)
    if (isCloneableLeaf(&op) && !op.use_empty())
      leavesInUse.insert(&op);

  // The maintained cluster order respects every edge (data and memory
  // order) and follows block order where edges leave a choice.
  SmallVector<unsigned> order;
  for (int root : rootAt)
    if (root >= 0)
      order.push_back(root);

  Operation *terminator =
      block.mightHaveTerminator() ? block.getTerminator() : nullptr;
  for (unsigned root : order) {
    SmallVector<unsigned, 1> indices(members[root].begin(),
                                     members[root].end());
    llvm::sort(indices);
    Operation *regionOp;
    if (indices.size() == 1 && isa<RegionOp>(nodes[indices.front()])) {
      regionOp = nodes[indices.front()];
    } else {
      SmallVector<Operation *> ops;
      for (unsigned index : indices)
        ops.push_back(nodes[index]);
      RegionOp region = buildRegion(ops);
      region.setIdAttr(OpBuilder(region).getI64IntegerAttr(nextId++));
      regionOp = region;
      ++stats.regionsFormed;
      stats.opsClustered += ops.size();
    }
    if (terminator)
      regionOp->moveBefore(terminator);
    else
      regionOp->moveBefore(&block, block.end());
  }
  // Leaves that now feed only clones go away; a dynamic tensor.empty whose
  // size operand moved into a region is put back in order.
  for (Operation *leaf : leavesInUse)
    if (leaf->use_empty())
      leaf->erase();
  // Every region now follows every op that stayed (leaves, host-side
  // scalar ops), in an order that respects their edges; only an op that
  // stayed and reads a region's result (a dynamic size computed inside)
  // is out of order.
  bool ordered = llvm::none_of(block, [&](Operation &op) {
    return !isa<RegionOp>(op) && !op.hasTrait<OpTrait::IsTerminator>() &&
           llvm::any_of(op.getOperands(), [&](Value operand) {
             return isa_and_nonnull<RegionOp>(operand.getDefiningOp());
           });
  });
  if (!ordered && !sortTopologically(&block))
    return block.getParentOp()->emitError(
        "hwagent-form-regions: could not order the regions of a block");
  return success();
}

/// The constant a linalg.generic computes when each input is a splat
/// constant (a 0-d scalar included) and its body is scalar arithmetic that
/// folds, as a splat of its result type; null otherwise.
static DenseElementsAttr foldSplatGeneric(linalg::GenericOp op) {
  if (op.getNumResults() != 1 || op.getNumDpsInits() != 1 ||
      !op.hasPureTensorSemantics())
    return {};
  auto type = dyn_cast<RankedTensorType>(op.getResult(0).getType());
  if (!type || !type.hasStaticShape() ||
      type.getNumElements() > kMaxFoldedElements)
    return {};
  Block &body = op.getRegion().front();
  // The body may not read the init (a reduction or an update in place).
  if (op.payloadUsesValueFromOperand(op.getDpsInitOperand(0)))
    return {};
  llvm::DenseMap<Value, Attribute> known;
  for (OpOperand *input : op.getDpsInputOperands()) {
    Attribute value;
    if (!matchPattern(input->get(), m_Constant(&value)))
      return {};
    if (auto elements = dyn_cast<DenseElementsAttr>(value)) {
      if (!elements.isSplat())
        return {};
      value = elements.getSplatValue<Attribute>();
    } else if (isa<ShapedType>(input->get().getType())) {
      return {};
    }
    known[body.getArgument(input->getOperandNumber())] = value;
  }
  for (Operation &inner : body.without_terminator()) {
    if (inner.getNumResults() != 1 || inner.getNumRegions() != 0 ||
        !isMemoryEffectFree(&inner))
      return {};
    SmallVector<Attribute> operands;
    for (Value operand : inner.getOperands()) {
      Attribute value = known.lookup(operand);
      if (!value && !matchPattern(operand, m_Constant(&value)))
        return {};
      operands.push_back(value);
    }
    SmallVector<OpFoldResult> folded;
    if (failed(inner.fold(operands, folded)) || folded.size() != 1)
      return {};
    Attribute value = dyn_cast<Attribute>(folded.front());
    if (!value) // folded to one of its operands
      value = known.lookup(cast<Value>(folded.front()));
    if (!value)
      return {};
    known[inner.getResult(0)] = value;
  }
  Value yielded = body.getTerminator()->getOperand(0);
  auto scalar = dyn_cast_or_null<TypedAttr>(known.lookup(yielded));
  if (!scalar || scalar.getType() != type.getElementType())
    return {};
  return DenseElementsAttr::get(type, scalar);
}

unsigned hwagent::foldConstantComputations(FunctionOpInterface function) {
  SmallVector<linalg::GenericOp> generics;
  function->walk([&](linalg::GenericOp op) { generics.push_back(op); });
  unsigned folded = 0;
  for (linalg::GenericOp op : generics) {
    DenseElementsAttr value = foldSplatGeneric(op);
    if (!value)
      continue;
    OpBuilder builder(op);
    Value constant =
        arith::ConstantOp::create(builder, op.getLoc(), value).getResult();
    op.getResult(0).replaceAllUsesWith(constant);
    SmallVector<Operation *> producers;
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        producers.push_back(def);
    op.erase();
    // The constants and the empty init it read, when nothing else does.
    for (Operation *def : producers)
      if (def->use_empty() && isMemoryEffectFree(def))
        def->erase();
    ++folded;
  }
  return folded;
}

FailureOr<RegionFormationStats>
hwagent::formRegions(FunctionOpInterface function, WorkloadProfiler &profiler,
                     const RegionFormationOptions &options) {
  RegionFormationStats stats;
  if (function.isExternal())
    return stats;
  int64_t nextId = 0;
  function->walk([&](RegionOp region) {
    nextId = std::max<int64_t>(nextId, region.getIdAttr().getInt() + 1);
  });
  for (Block &block : function.getFunctionBody()) {
    BlockClustering clustering(block, profiler, options);
    clustering.buildGraph();
    clustering.cluster();
    if (failed(clustering.materialize(nextId, stats)))
      return failure();
  }
  return stats;
}
