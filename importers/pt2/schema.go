package pt2

import "encoding/json"

// The JSON form of torch.export's serialized ExportedProgram (schema
// version 8, torch/_export/serde/schema.py). A union is an object with one
// key naming the member set; only the fields this importer reads are
// declared, so newer minor versions that add fields still decode.

type exportedProgram struct {
	GraphModule      *graphModule               `json:"graph_module"`
	OpsetVersion     map[string]int64           `json:"opset_version"`
	RangeConstraints map[string]rangeConstraint `json:"range_constraints"`
	SchemaVersion    *schemaVersion             `json:"schema_version"`
	Verifiers        []string                   `json:"verifiers"`
	TorchVersion     string                     `json:"torch_version"`
}

type schemaVersion struct {
	Major int64 `json:"major"`
	Minor int64 `json:"minor"`
}

// rangeConstraint bounds a symbol; a missing or null bound is unbounded.
// Bounds are kept as raw JSON numbers: torch writes its "infinite" bound as
// a very large integer.
type rangeConstraint struct {
	MinVal json.Number `json:"min_val"`
	MaxVal json.Number `json:"max_val"`
}

type graphModule struct {
	Graph     *graph          `json:"graph"`
	Signature *graphSignature `json:"signature"`
}

type graph struct {
	Inputs       []argument            `json:"inputs"`
	Outputs      []argument            `json:"outputs"`
	Nodes        []node                `json:"nodes"`
	TensorValues map[string]tensorMeta `json:"tensor_values"`
	SymIntValues map[string]symInt     `json:"sym_int_values"`
	// IsSingleTensorReturn marks a subgraph (a branch or body of a
	// higher-order operator) that returns one tensor rather than a tuple.
	IsSingleTensorReturn bool `json:"is_single_tensor_return"`
}

// graphArgument is a subgraph passed to a higher-order operator: the
// submodule's name (true_graph_0, while_loop_body_graph_0, ...) and its
// graph, whose inputs are the operator's operands.
type graphArgument struct {
	Name  string `json:"name"`
	Graph *graph `json:"graph"`
}

// symBoolArgument is a run-time bool by name, or a known one.
type symBoolArgument struct {
	AsName *string `json:"as_name"`
	AsBool *bool   `json:"as_bool"`
}

type tensorMeta struct {
	DType  int64    `json:"dtype"`
	Sizes  []symInt `json:"sizes"`
	Layout int64    `json:"layout"`
}

// symInt is a size: a known int, or an expression of symbols.
type symInt struct {
	AsInt  *int64   `json:"as_int"`
	AsExpr *symExpr `json:"as_expr"`
}

type symExpr struct {
	ExprStr string `json:"expr_str"`
}

type node struct {
	Target   string            `json:"target"`
	Inputs   []namedArgument   `json:"inputs"`
	Outputs  []argument        `json:"outputs"`
	Metadata map[string]string `json:"metadata"`
	Name     string            `json:"name"`
}

// Argument kinds (ArgumentKind): how the call passed the argument.
const (
	kindPositional = 1
	kindKeyword    = 2
)

type namedArgument struct {
	Name string   `json:"name"`
	Arg  argument `json:"arg"`
	Kind *int64   `json:"kind"`
}

type tensorArgument struct {
	Name string `json:"name"`
}

// symIntArgument is a run-time int by name, or a known one.
type symIntArgument struct {
	AsName *string `json:"as_name"`
	AsInt  *int64  `json:"as_int"`
}

type optionalTensorArgument struct {
	AsTensor *tensorArgument `json:"as_tensor"`
	AsNone   *bool           `json:"as_none"`
}

type device struct {
	Type  string `json:"type"`
	Index *int64 `json:"index"`
}

// argument is the Argument union. Members this importer cannot use are
// kept raw so that the error can name them.
type argument struct {
	AsNone            *bool                    `json:"as_none"`
	AsTensor          *tensorArgument          `json:"as_tensor"`
	AsTensors         []tensorArgument         `json:"as_tensors"`
	AsInt             *int64                   `json:"as_int"`
	AsInts            []int64                  `json:"as_ints"`
	AsFloat           *pyFloat                 `json:"as_float"`
	AsFloats          []pyFloat                `json:"as_floats"`
	AsString          *string                  `json:"as_string"`
	AsStrings         []string                 `json:"as_strings"`
	AsSymInt          *symIntArgument          `json:"as_sym_int"`
	AsSymInts         []symIntArgument         `json:"as_sym_ints"`
	AsScalarType      *int64                   `json:"as_scalar_type"`
	AsMemoryFormat    *int64                   `json:"as_memory_format"`
	AsLayout          *int64                   `json:"as_layout"`
	AsDevice          *device                  `json:"as_device"`
	AsBool            *bool                    `json:"as_bool"`
	AsBools           []bool                   `json:"as_bools"`
	AsOptionalTensors []optionalTensorArgument `json:"as_optional_tensors"`
	AsOptionalTensor  *optionalTensorArgument  `json:"as_optional_tensor"`
	AsSymBool         *symBoolArgument         `json:"as_sym_bool"`
	AsSymBools        json.RawMessage          `json:"as_sym_bools"`
	AsSymFloat        json.RawMessage          `json:"as_sym_float"`
	AsSymFloats       json.RawMessage          `json:"as_sym_floats"`
	AsGraph           *graphArgument           `json:"as_graph"`
	AsCustomObj       json.RawMessage          `json:"as_custom_obj"`
	AsOperator        json.RawMessage          `json:"as_operator"`
	AsComplex         json.RawMessage          `json:"as_complex"`
	AsNestedTensors   json.RawMessage          `json:"as_nested_tensors"`
	AsIntLists        json.RawMessage          `json:"as_int_lists"`
	AsStringToArg     json.RawMessage          `json:"as_string_to_argument"`
}

type graphSignature struct {
	InputSpecs  []inputSpec  `json:"input_specs"`
	OutputSpecs []outputSpec `json:"output_specs"`
}

type inputSpec struct {
	UserInput *struct {
		Arg argument `json:"arg"`
	} `json:"user_input"`
	Parameter *struct {
		Arg           tensorArgument `json:"arg"`
		ParameterName string         `json:"parameter_name"`
	} `json:"parameter"`
	Buffer *struct {
		Arg        tensorArgument `json:"arg"`
		BufferName string         `json:"buffer_name"`
		Persistent bool           `json:"persistent"`
	} `json:"buffer"`
	TensorConstant *struct {
		Arg                tensorArgument `json:"arg"`
		TensorConstantName string         `json:"tensor_constant_name"`
	} `json:"tensor_constant"`
	CustomObj     json.RawMessage `json:"custom_obj"`
	Token         json.RawMessage `json:"token"`
	ConstantInput *struct {
		Name  string        `json:"name"`
		Value constantValue `json:"value"`
	} `json:"constant_input"`
}

type constantValue struct {
	AsNone   *bool    `json:"as_none"`
	AsInt    *int64   `json:"as_int"`
	AsFloat  *pyFloat `json:"as_float"`
	AsString *string  `json:"as_string"`
	AsBool   *bool    `json:"as_bool"`
}

type outputSpec struct {
	UserOutput *struct {
		Arg argument `json:"arg"`
	} `json:"user_output"`
	BufferMutation *struct {
		Arg        tensorArgument `json:"arg"`
		BufferName string         `json:"buffer_name"`
	} `json:"buffer_mutation"`
	LossOutput          json.RawMessage `json:"loss_output"`
	GradientToParameter json.RawMessage `json:"gradient_to_parameter"`
	GradientToUserInput json.RawMessage `json:"gradient_to_user_input"`
	UserInputMutation   json.RawMessage `json:"user_input_mutation"`
	Token               json.RawMessage `json:"token"`
	ParameterMutation   json.RawMessage `json:"parameter_mutation"`
}

// rawSet reports whether a raw union member is present (not absent or null).
func rawSet(m json.RawMessage) bool { return len(m) > 0 && string(m) != "null" }
